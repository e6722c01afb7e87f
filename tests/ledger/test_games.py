"""History (GetGames) and rankings (GetRankings) of a real ledger server on a
known journal, on SQLite and PostgreSQL.

The journal: five players granted 1000 coins each (grants never rank), three
games on coin server ``s1``, one on ``s2`` (another server's coins never
rank on s1), a no-call room fee and an operator's adjustment (neither
ranks) and a repeated settlement (counted once). Coins per game worked out by hand from rulings.md
"Settlement" (claim = points / unit × base; the winner pays a 2% fee on what
it receives, floored):

- g1 (s1, hunzhan 50/5): A 0, B +10 → +100 − 2 = 98 (fee 2), C −10 → −100, D 0.
- g2 (s1, doudizhu 100/1): A +2 → 200 − 4 = 196 (fee 4), B −1 → −100, C −1 → −100.
- g3 (s2, hunzhan): D +10 → 98, A −10 → −100.
- g4 (s1, hunzhan): D 0, E 0 (nobody's coins move; both played).

So on s1 over the week: A 196 (2 games), D 0 (2), E 0 (1), B −2 (2), C −200 (2):
ranks 1, 2, 2 (a tie), 4, 5.
"""

from __future__ import annotations

import time

import grpc
import pytest

from paiju.common.v1 import common_pb2
from paiju.ledger.v1 import ledger_pb2
from tests.ledger.conftest import GRANT_MD, LedgerUnderTest

HUNZHAN = common_pb2.SettlementTerms(base=50, unit=5, fee_rate=0.02)
DOUDIZHU = common_pb2.SettlementTerms(base=100, unit=1, fee_rate=0.02)
DAY_MS = 86_400_000


def settle(game_id: str, server: str, room: str, terms: common_pb2.SettlementTerms,
           seats: list[tuple[str, int]], game: str) -> ledger_pb2.SettleRequest:
    return ledger_pb2.SettleRequest(
        game_id=game_id, terms=terms, game=game, reason="normal", server=server, room=room,
        seats=[ledger_pb2.SettleSeat(seat=i, player=p, points=pts)
               for i, (p, pts) in enumerate(seats)])


async def known_journal(ledger: LedgerUnderTest) -> None:
    for p in "ABCDE":
        await ledger.account(p, 1000)
    stub = ledger.stub
    await stub.Settle(settle("g1", "s1", "s1-1", HUNZHAN,
                             [("A", 0), ("B", 10), ("C", -10), ("D", 0)], "hunzhan"))
    await stub.Settle(settle("g2", "s1", "s1-2", DOUDIZHU, [("A", 2), ("B", -1), ("C", -1)],
                             "doudizhu"))
    await stub.Settle(settle("g3", "s2", "s2-1", HUNZHAN, [("D", 10), ("A", -10)], "hunzhan"))
    await stub.ChargeFee(ledger_pb2.ChargeFeeRequest(
        charge_id="g5:no_call_fee", players=["A", "B"], coins=20, reason="no_call_fee"))
    await stub.Grant(ledger_pb2.GrantRequest(player="C", coins=5000, reason="test",
                                             grant_id="more:C"), metadata=GRANT_MD)
    await stub.Adjust(ledger_pb2.AdjustRequest(player="B", coins=700, reason="refund",
                                               adjustment_id="adj:B"),
                      metadata=(("x-paiju-operator", "ops"),))
    await stub.Settle(settle("g4", "s1", "s1-1", HUNZHAN, [("D", 0), ("E", 0)], "hunzhan"))
    again = await stub.Settle(settle("g2", "s1", "s1-2", DOUDIZHU,
                                     [("A", 2), ("B", -1), ("C", -1)], "doudizhu"))
    assert again.repeated


def rows(reply: ledger_pb2.GetRankingsResponse) -> list[tuple[int, str, int, int]]:
    return [(r.rank, r.player, r.coins, r.games) for r in reply.rows]


async def test_rankings_of_a_known_journal(ledger: LedgerUnderTest) -> None:
    await known_journal(ledger)
    reply = await ledger.stub.GetRankings(ledger_pb2.GetRankingsRequest(server="s1", player="C"))
    assert rows(reply) == [(1, "A", 196, 2), (2, "D", 0, 2), (2, "E", 0, 1), (4, "B", -2, 2),
                           (5, "C", -200, 2)]
    assert [r.name for r in reply.rows] == ["A", "D", "E", "B", "C"]
    assert (reply.me.rank, reply.me.player, reply.me.coins, reply.players) == (5, "C", -200, 5)
    today = int(time.time() * 1000) // DAY_MS
    assert (reply.from_ms, reply.to_ms) == ((today - 6) * DAY_MS, (today + 1) * DAY_MS)

    top2 = await ledger.stub.GetRankings(ledger_pb2.GetRankingsRequest(
        server="s1", player="B", limit=2))
    assert rows(top2) == [(1, "A", 196, 2), (2, "D", 0, 2)]
    assert (top2.me.rank, top2.me.coins, top2.players) == (4, -2, 5)

    s2 = await ledger.stub.GetRankings(ledger_pb2.GetRankingsRequest(server="s2", player="E"))
    assert rows(s2) == [(1, "D", 98, 1), (2, "A", -100, 1)]
    assert not s2.HasField("me")


async def test_the_window_is_seven_days(ledger: LedgerUnderTest) -> None:
    await known_journal(ledger)
    now = int(time.time() * 1000)
    sixth = await ledger.stub.GetRankings(ledger_pb2.GetRankingsRequest(
        server="s1", player="A", until_ms=now + 6 * DAY_MS))
    assert rows(sixth)[0] == (1, "A", 196, 2)
    gone = await ledger.stub.GetRankings(ledger_pb2.GetRankingsRequest(
        server="s1", player="A", until_ms=now + 7 * DAY_MS))
    assert (list(gone.rows), gone.players, gone.HasField("me")) == ([], 0, False)
    before = await ledger.stub.GetRankings(ledger_pb2.GetRankingsRequest(
        server="s1", until_ms=now - DAY_MS))
    assert before.players == 0  # nothing was played yesterday


async def test_history_pages_newest_first(ledger: LedgerUnderTest) -> None:
    await known_journal(ledger)
    first = await ledger.stub.GetGames(ledger_pb2.GetGamesRequest(player="A", limit=2))
    got = [(g.game_id, g.server, g.room, g.game, g.seat, g.points, g.coins, g.fee)
           for g in first.games]
    assert got == [("g3", "s2", "s2-1", "hunzhan", 1, -10, -100, 0),
                   ("g2", "s1", "s1-2", "doudizhu", 0, 2, 196, 4)]
    assert [(p.player, p.name, p.points, p.coins, p.fee) for p in first.games[1].players] == [
        ("A", "A", 2, 196, 4), ("B", "B", -1, -100, 0), ("C", "C", -1, -100, 0)]
    assert first.next_before == first.games[1].transaction_id
    rest = await ledger.stub.GetGames(ledger_pb2.GetGamesRequest(
        player="A", limit=2, before=first.next_before))
    # g1 moved none of A's coins: it has no journal entry of A's, and is A's game all the same.
    assert [(g.game_id, g.points, g.coins, g.fee) for g in rest.games] == [("g1", 0, 0, 0)]
    assert [p.player for p in rest.games[0].players] == ["A", "B", "C", "D"]
    assert rest.next_before == 0
    nobody = await ledger.stub.GetGames(ledger_pb2.GetGamesRequest(player="nobody"))
    assert list(nobody.games) == []


@pytest.mark.parametrize("request_", [
    ledger_pb2.GetRankingsRequest(server="s1", limit=101),
    ledger_pb2.GetRankingsRequest(server=""),
    ledger_pb2.GetRankingsRequest(server="s1", player="bad player"),
])
async def test_bad_rankings_requests(ledger: LedgerUnderTest,
                                     request_: ledger_pb2.GetRankingsRequest) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await ledger.stub.GetRankings(request_)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert (err.value.details() or "").split(":")[0] in ("bad_limit", "bad_server",
                                                          "bad_player_id")


async def test_bad_history_request(ledger: LedgerUnderTest) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await ledger.stub.GetGames(ledger_pb2.GetGamesRequest(player="A", limit=101))
    assert (err.value.code(), (err.value.details() or "").split(":")[0]) == (
        grpc.StatusCode.INVALID_ARGUMENT, "bad_limit")


async def test_materialised_rankings_are_computed_again_when_old(db_url: str) -> None:
    """The current window's rankings are kept materialised: a read within
    ``max_age`` of the last computation sees the same rows; a later one too,
    and has them computed again in the background, after which the
    settlements since are seen (clock injected; a real database)."""
    import asyncio as aio

    from paiju.runtime import db
    from services.ledger.application.ledger import Ledger
    from services.ledger.domain import settlement as rules
    from services.ledger.main import MIGRATIONS

    await aio.to_thread(db.migrate, db_url, MIGRATIONS)
    engine = db.make_engine(db_url)
    clock = [10 * DAY_MS + 1000]
    led = Ledger(engine, clock=lambda: clock[0], rankings_max_age_ms=30_000)
    terms = rules.Terms(base=100, unit=1, fee_rate=0.0)
    try:
        for p in "AB":
            await led.accounts.open(p, p)
            await led.postings.grant(p, 1000, "test", f"start:{p}")
        await led.postings.settle("m1", terms, [rules.Seat(0, "A", 1), rules.Seat(1, "B", -1)],
                                  "doudizhu", "normal", "s1", "s1-1")
        first = await led.games.rankings("s1", "B")
        assert [(r.player, r.coins) for r in first.rows] == [("A", 100), ("B", -100)]
        await led.postings.settle("m2", terms, [rules.Seat(0, "A", -3), rules.Seat(1, "B", 3)],
                                  "doudizhu", "normal", "s1", "s1-1")
        clock[0] += 29_000
        stale = await led.games.rankings("s1", "B")
        assert [(r.player, r.coins) for r in stale.rows] == [("A", 100), ("B", -100)]
        clock[0] += 2_000
        old = await led.games.rankings("s1", "B")  # answered at once, computed again after
        assert [(r.player, r.coins) for r in old.rows] == [("A", 100), ("B", -100)]
        await led.games.refreshed()
        fresh = await led.games.rankings("s1", "B")
        assert [(r.rank, r.player, r.coins, r.games) for r in fresh.rows] == [
            (1, "B", 200, 2), (2, "A", -200, 2)]
        assert fresh.me is not None and fresh.me.rank == 1
        # the next UTC day is another window: computed again at once
        clock[0] += DAY_MS
        await led.postings.settle("m3", terms, [rules.Seat(0, "A", 5), rules.Seat(1, "B", -5)],
                                  "doudizhu", "normal", "s1", "s1-1")
        day = await led.games.rankings("s1")
        assert [(r.player, r.coins) for r in day.rows] == [("A", 300), ("B", -300)]
    finally:
        await led.uow.close()
        await engine.dispose()


async def test_a_repeat_without_server_and_room_is_a_repeat(ledger: LedgerUnderTest) -> None:
    """Where a game was played is not what is settled: the same settlement
    sent again without server and room (a table of the old version, a retry
    across a rollout) is a repeat, and counts once."""
    for p in "AB":
        await ledger.account(p, 1000)
    first = await ledger.stub.Settle(settle("r1", "s1", "s1-1", DOUDIZHU, [("A", 1), ("B", -1)],
                                            "doudizhu"))
    again = await ledger.stub.Settle(settle("r1", "", "", DOUDIZHU, [("A", 1), ("B", -1)],
                                            "doudizhu"))
    assert (first.repeated, again.repeated) == (False, True)
    ranked = await ledger.stub.GetRankings(ledger_pb2.GetRankingsRequest(server="s1"))
    assert rows(ranked) == [(1, "A", 98, 1), (2, "B", -100, 1)]
