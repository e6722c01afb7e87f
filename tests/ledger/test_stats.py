"""A player's stats per game (GetStats) and the rankings' windows (week,
season, all) of a real ledger on SQLite and PostgreSQL.

The journal for the stats: A, B, C, D granted 1000 coins each (grants are no
games), coins worked out by hand from rulings.md "Settlement" (claim =
points / unit × base; a winner pays a 2% fee on what it receives, floored):

- d1 (doudizhu 100/1, normal, played 60 s): A +2 → 200 − 4 = 196, B −1 → −100,
  C −1 → −100.
- d2 (doudizhu, normal, 90 s): A −2 → −200, B +1 → 98, C +1 → 98.
- d3 (doudizhu, escape, 30 s; A escaped and pays 2 to each): A −4 → −400,
  B +2 → 196, C +2 → 196.
- h1 (hunzhan 50/5, normal, no time played given): A 0, B +10 → 98,
  C −10 → −100, D 0.
- a no-call room fee of A and B (not a game).

So A's doudizhu: 3 games, 1 win, 2 losses, best 196, worst −400, 1 escape,
net −404, played 180 s; A's hunzhan: 1 game, a draw, best = worst = 0,
played 0. B's doudizhu: 3 games, 2 wins, 1 loss, best 196, worst −100, net
194, no escape, 180 s.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import grpc
import pytest

from paiju.common.v1 import common_pb2
from paiju.ledger.v1 import ledger_pb2
from tests.ledger.conftest import LedgerUnderTest

HUNZHAN = common_pb2.SettlementTerms(base=50, unit=5, fee_rate=0.02)
DOUDIZHU = common_pb2.SettlementTerms(base=100, unit=1, fee_rate=0.02)


def settle(game_id: str, terms: common_pb2.SettlementTerms, seats: list[tuple[str, int]],
           game: str, reason: str = "normal", played_ms: int = 0) -> ledger_pb2.SettleRequest:
    return ledger_pb2.SettleRequest(
        game_id=game_id, terms=terms, game=game, reason=reason, server="s1", room="s1-1",
        played_ms=played_ms,
        seats=[ledger_pb2.SettleSeat(seat=i, player=p, points=pts)
               for i, (p, pts) in enumerate(seats)])


async def known_journal(ledger: LedgerUnderTest) -> None:
    for p in "ABCDE":
        await ledger.account(p, 1000)
    stub = ledger.stub
    await stub.Settle(settle("d1", DOUDIZHU, [("A", 2), ("B", -1), ("C", -1)], "doudizhu",
                             played_ms=60_000))
    await stub.Settle(settle("d2", DOUDIZHU, [("A", -2), ("B", 1), ("C", 1)], "doudizhu",
                             played_ms=90_000))
    await stub.Settle(settle("d3", DOUDIZHU, [("A", -4), ("B", 2), ("C", 2)], "doudizhu",
                             "escape", 30_000))
    # the same settlement with another time played is a repeat: nothing changes
    again = await stub.Settle(settle("d3", DOUDIZHU, [("A", -4), ("B", 2), ("C", 2)],
                                     "doudizhu", "escape", 99_000))
    assert again.repeated
    await stub.Settle(settle("h1", HUNZHAN, [("A", 0), ("B", 10), ("C", -10), ("D", 0)],
                             "hunzhan"))
    await stub.ChargeFee(ledger_pb2.ChargeFeeRequest(
        charge_id="x:no_call_fee", players=["A", "B"], coins=20, reason="no_call_fee"))


def figures(g: ledger_pb2.GameStats) -> tuple[int | str, ...]:
    return (g.game, g.games, g.wins, g.losses, g.draws, g.best, g.worst, g.escapes, g.coins,
            g.played_ms)


async def test_stats_of_a_known_journal(ledger: LedgerUnderTest) -> None:
    await known_journal(ledger)
    a = await ledger.stub.GetStats(ledger_pb2.GetStatsRequest(player="A"))
    assert (a.player, a.name) == ("A", "A")
    assert [figures(g) for g in a.games] == [
        ("doudizhu", 3, 1, 2, 0, 196, -400, 1, -404, 180_000),
        ("hunzhan", 1, 0, 0, 1, 0, 0, 0, 0, 0)]
    assert all(0 < g.first_ms <= g.last_ms for g in a.games)
    b = await ledger.stub.GetStats(ledger_pb2.GetStatsRequest(player="B", game="doudizhu"))
    assert [figures(g) for g in b.games] == [("doudizhu", 3, 2, 1, 0, 196, -100, 0, 194, 180_000)]
    d = await ledger.stub.GetStats(ledger_pb2.GetStatsRequest(player="D"))
    assert [figures(g) for g in d.games] == [("hunzhan", 1, 0, 0, 1, 0, 0, 0, 0, 0)]
    e = await ledger.stub.GetStats(ledger_pb2.GetStatsRequest(player="E"))
    assert (e.name, list(e.games)) == ("E", [])
    none = await ledger.stub.GetStats(ledger_pb2.GetStatsRequest(player="A", game="daa"))
    assert list(none.games) == []


@pytest.mark.parametrize(("request_", "code", "reason"), [
    (ledger_pb2.GetStatsRequest(player="nobody"), grpc.StatusCode.NOT_FOUND, "unknown_player"),
    (ledger_pb2.GetStatsRequest(player="bad player"), grpc.StatusCode.INVALID_ARGUMENT,
     "bad_player_id"),
    (ledger_pb2.GetStatsRequest(player="A", game="x" * 65), grpc.StatusCode.INVALID_ARGUMENT,
     "bad_game"),
])
async def test_bad_stats_requests(ledger: LedgerUnderTest, request_: ledger_pb2.GetStatsRequest,
                                  code: grpc.StatusCode, reason: str) -> None:
    await ledger.account("A", 10)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await ledger.stub.GetStats(request_)
    assert (err.value.code(), (err.value.details() or "").split(":")[0]) == (code, reason)


async def test_a_bad_time_played_settles_nothing(ledger: LedgerUnderTest) -> None:
    for p in "AB":
        await ledger.account(p, 1000)
    for bad in (-1, 7 * 86_400_000 + 1):
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await ledger.stub.Settle(settle("p1", DOUDIZHU, [("A", 1), ("B", -1)], "doudizhu",
                                            played_ms=bad))
        assert (err.value.code(), (err.value.details() or "").split(":")[0]) == (
            grpc.StatusCode.INVALID_ARGUMENT, "bad_played_ms")
    assert (await ledger.coins("A"), await ledger.coins("B")) == (1000, 1000)
    a = await ledger.stub.GetStats(ledger_pb2.GetStatsRequest(player="A"))
    assert list(a.games) == []


async def test_a_bad_window(ledger: LedgerUnderTest) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await ledger.stub.GetRankings(ledger_pb2.GetRankingsRequest(server="s1", window="month"))
    assert (err.value.code(), (err.value.details() or "").split(":")[0]) == (
        grpc.StatusCode.INVALID_ARGUMENT, "bad_window")


def ms(year: int, month: int, day: int, hour: int = 0) -> int:
    return int(datetime(year, month, day, hour, tzinfo=UTC).timestamp() * 1000)


async def test_week_season_and_all(db_url: str) -> None:
    """Three settlements (clock injected, no fee, 100 coins a point): m1 on
    25 February (all time only), m2 on 5 March (the season, March, but not
    the week), m3 on 19 March; read on 20 March. A: +100, −300, +500. Then
    m4 (A +2 points) on 20 March, seen by the materialised season and all
    time once they are computed again."""
    from paiju.runtime import db
    from services.ledger.application.ledger import Ledger
    from services.ledger.domain import settlement as rules
    from services.ledger.main import MIGRATIONS

    await asyncio.to_thread(db.migrate, db_url, MIGRATIONS)
    engine = db.make_engine(db_url)
    clock = [ms(2026, 2, 25, 12)]
    led = Ledger(engine, clock=lambda: clock[0])
    terms = rules.Terms(base=100, unit=1, fee_rate=0.0)
    try:
        for p in "AB":
            await led.accounts.open(p, p)
            await led.postings.grant(p, 1000, "test", f"start:{p}")
        for game_id, at, a_points in (("m1", ms(2026, 2, 25, 12), 1),
                                      ("m2", ms(2026, 3, 5, 12), -3),
                                      ("m3", ms(2026, 3, 19, 12), 5)):
            clock[0] = at
            await led.postings.settle(game_id, terms, [rules.Seat(0, "A", a_points),
                                                       rules.Seat(1, "B", -a_points)],
                                      "doudizhu", "normal", "s1", "s1-1")
        clock[0] = ms(2026, 3, 20, 9)
        got = {}
        for window in ("week", "season", "all", ""):
            r = await led.games.rankings("s1", "B", window=window)
            got[window] = ([(x.rank, x.player, x.coins, x.games) for x in r.rows],
                           r.from_ms, r.to_ms, r.me.rank if r.me else 0)
        end = ms(2026, 3, 21)
        assert got["week"] == ([(1, "A", 500, 1), (2, "B", -500, 1)], ms(2026, 3, 14), end, 2)
        assert got[""] == got["week"]
        assert got["season"] == ([(1, "A", 200, 2), (2, "B", -200, 2)], ms(2026, 3, 1), end, 2)
        assert got["all"] == ([(1, "A", 300, 3), (2, "B", -300, 3)], 0, end, 2)
        # season and all time are materialised: m4 (A +2, 20 March) shows once
        # they are older than the ledger's 30 s and computed again
        await led.postings.settle("m4", terms, [rules.Seat(0, "A", 2), rules.Seat(1, "B", -2)],
                                  "doudizhu", "normal", "s1", "s1-1")

        async def coins(window: str) -> list[tuple[str, int, int]]:
            r = await led.games.rankings("s1", window=window)
            return [(x.player, x.coins, x.games) for x in r.rows]

        assert await coins("season") == [("A", 200, 2), ("B", -200, 2)]
        assert await coins("all") == [("A", 300, 3), ("B", -300, 3)]
        clock[0] += 31_000
        assert await coins("season") == [("A", 200, 2), ("B", -200, 2)]  # and computed again
        assert await coins("all") == [("A", 300, 3), ("B", -300, 3)]
        await led.games.refreshed()
        assert await coins("season") == [("A", 400, 3), ("B", -400, 3)]
        assert await coins("all") == [("A", 500, 4), ("B", -500, 4)]
        assert await coins("week") == [("A", 500, 1), ("B", -500, 1)]  # the same for the week
        await led.games.refreshed()
        assert await coins("week") == [("A", 700, 2), ("B", -700, 2)]
        # a new month is another season: computed at once, m1-m4 in all time only
        clock[0] = ms(2026, 4, 1, 1)
        assert await coins("season") == []
        assert await coins("all") == [("A", 500, 4), ("B", -500, 4)]
        # a season of another month read by its until: February holds m1 only
        feb = await led.games.rankings("s1", window="season", until_ms=ms(2026, 2, 28, 23))
        assert ([(x.player, x.coins) for x in feb.rows], feb.from_ms, feb.to_ms) == (
            [("A", 100), ("B", -100)], ms(2026, 2, 1), ms(2026, 3, 1))
    finally:
        await led.uow.close()
        await engine.dispose()
