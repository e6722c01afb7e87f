"""The ledger through gRPC on a real server, on SQLite and on PostgreSQL.

Expected coins are worked out by hand from seed 000 (结算表, 例外) and
rulings.md "Settlement"; see tests/ledger/test_settlement.py for the arithmetic.
"""

from __future__ import annotations

import asyncio
import struct

import grpc
import pytest

from paiju.common.v1 import common_pb2
from paiju.ledger.v1 import ledger_pb2
from tests.fixtures import health_status, wait_health
from tests.ledger.conftest import GRANT_MD, LedgerUnderTest

HUNZHAN = common_pb2.SettlementTerms(base=50, unit=5, fee_rate=0.02)
DOUDIZHU = common_pb2.SettlementTerms(base=100, unit=1, fee_rate=0.02)


def settle_request(game_id: str, terms: common_pb2.SettlementTerms,
                   seats: list[tuple[str, int]], game: str = "hunzhan",
                   reason: str = "normal") -> ledger_pb2.SettleRequest:
    return ledger_pb2.SettleRequest(
        game_id=game_id, terms=terms, game=game, reason=reason,
        seats=[ledger_pb2.SettleSeat(seat=i, player=p, points=pts)
               for i, (p, pts) in enumerate(seats)])


def table(reply: ledger_pb2.SettleResponse) -> list[tuple[str, int, int, int]]:
    return [(r.player, r.points, r.coins, r.fee) for r in reply.rows]


async def balances(ledger: LedgerUnderTest, players: str | list[str]) -> dict[str, int]:
    return {p: await ledger.coins(p) for p in players}


async def refused(call: object) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call  # type: ignore[misc]
    return err.value


def reason_of(e: grpc.aio.AioRpcError) -> str:
    return (e.details() or "").split(":", 1)[0]


async def test_seed_000_table(ledger: LedgerUnderTest) -> None:
    for p in "ABCD":
        await ledger.account(p, 1000)
    reply = await ledger.stub.Settle(settle_request(
        "g-seed", HUNZHAN, [("A", 0), ("B", 10), ("C", -10), ("D", 0)]))
    # 结算表: A 0; B 98 with fee 2; C -100; D 0.
    assert table(reply) == [("A", 0, 0, 0), ("B", 10, 98, 2), ("C", -10, -100, 0),
                            ("D", 0, 0, 0)]
    assert (reply.house, reply.fees, reply.remainder, reply.repeated) == (2, 2, 0, False)
    assert await balances(ledger, "ABCD") == {"A": 1000, "B": 1098, "C": 900, "D": 1000}
    audit = await ledger.audit()
    assert audit.ok and audit.journal_sum == 0
    assert audit.house["house:fees"] == 2
    assert audit.house["house:grants"] == -4000


async def test_hunzhan_escape_below_60(ledger: LedgerUnderTest) -> None:
    # Escapee captured 40: −60 points; W captured 80: +20; 600 paid, 200 claimed.
    for p in "EWXY":
        await ledger.account(p, 1000)
    reply = await ledger.stub.Settle(settle_request(
        "g-esc-1", HUNZHAN, [("E", -60), ("W", 20), ("X", 0), ("Y", 0)], reason="escape"))
    assert table(reply) == [("E", -60, -600, 0), ("W", 20, 196, 4), ("X", 0, 0, 0),
                            ("Y", 0, 0, 0)]
    assert (reply.fees, reply.remainder) == (4, 400)
    assert await balances(ledger, "EWXY") == {"E": 400, "W": 1196, "X": 1000, "Y": 1000}
    audit = await ledger.audit()
    assert audit.ok
    assert (audit.house["house:fees"], audit.house["house:penalties"]) == (4, 400)


async def test_hunzhan_escape_at_or_above_60(ledger: LedgerUnderTest) -> None:
    # Escapee captured 70: −10 points (100 coins) for claims of 200 + 50: shares 80 and 20.
    for p in "EWVY":
        await ledger.account(p, 1000)
    reply = await ledger.stub.Settle(settle_request(
        "g-esc-2", HUNZHAN, [("E", -10), ("W", 20), ("V", 5), ("Y", 0)], reason="escape"))
    assert table(reply) == [("E", -10, -100, 0), ("W", 20, 79, 1), ("V", 5, 20, 0),
                            ("Y", 0, 0, 0)]
    assert await balances(ledger, "EWVY") == {"E": 900, "W": 1079, "V": 1020, "Y": 1000}


async def test_hunzhan_escapee_cannot_pay(ledger: LedgerUnderTest) -> None:
    # Penalty 600 but the escapee holds 173; shares 103 and 69, 1 coin left to the house.
    await ledger.account("E", 173)
    for p in "WVY":
        await ledger.account(p, 1000)
    reply = await ledger.stub.Settle(settle_request(
        "g-esc-3", HUNZHAN, [("E", -60), ("W", 15), ("V", 10), ("Y", 0)], reason="escape"))
    assert table(reply) == [("E", -60, -173, 0), ("W", 15, 101, 2), ("V", 10, 68, 1),
                            ("Y", 0, 0, 0)]
    assert (reply.fees, reply.remainder, reply.house) == (3, 1, 4)
    assert await balances(ledger, "EWVY") == {"E": 0, "W": 1101, "V": 1068, "Y": 1000}
    assert (await ledger.audit()).ok


async def test_doudizhu_farmer_short(ledger: LedgerUnderTest) -> None:
    await ledger.account("L", 1000)
    await ledger.account("F1", 50)
    await ledger.account("F2", 1000)
    reply = await ledger.stub.Settle(settle_request(
        "g-ddz", DOUDIZHU, [("L", 4), ("F1", -2), ("F2", -2)], game="doudizhu"))
    assert table(reply) == [("L", 4, 245, 5), ("F1", -2, -50, 0), ("F2", -2, -200, 0)]
    assert await balances(ledger, ["L", "F1", "F2"]) == {"L": 1245, "F1": 0, "F2": 800}


async def test_fee_rounds_down(ledger: LedgerUnderTest) -> None:
    await ledger.account("A", 0)
    await ledger.account("B", 1000)
    reply = await ledger.stub.Settle(settle_request(
        "g-fee", common_pb2.SettlementTerms(base=1, unit=1, fee_rate=0.02),
        [("A", 149), ("B", -149)], game="shengji"))
    # 149 × 0.02 = 2.98 → 2.
    assert table(reply) == [("A", 149, 147, 2), ("B", -149, -149, 0)]


async def test_same_settlement_twice_applies_once(ledger: LedgerUnderTest) -> None:
    for p in "ABCD":
        await ledger.account(p, 1000)
    request = settle_request("g-twice", HUNZHAN, [("A", 0), ("B", 10), ("C", -10), ("D", 0)])
    first = await ledger.stub.Settle(request)
    second = await ledger.stub.Settle(request)
    assert (first.repeated, second.repeated) == (False, True)
    assert table(second) == table(first)
    assert second.house == first.house == 2
    assert await balances(ledger, "ABCD") == {"A": 1000, "B": 1098, "C": 900, "D": 1000}
    history = await ledger.stub.GetHistory(ledger_pb2.GetHistoryRequest(player="B"))
    assert [(e.kind, e.reference, e.delta, e.balance_after) for e in history.entries] == [
        ("settle", "g-twice", 98, 1098), ("grant", "start:B", 1000, 1000)]


async def test_twenty_at_once_applied_once(ledger: LedgerUnderTest) -> None:
    for p in "ABCD":
        await ledger.account(p, 1000)
    request = settle_request("g-20", HUNZHAN, [("A", 0), ("B", 10), ("C", -10), ("D", 0)])
    replies = await asyncio.gather(*(ledger.stub.Settle(request) for _ in range(20)))
    assert sorted(r.repeated for r in replies) == [False] + [True] * 19
    assert all(table(r) == table(replies[0]) for r in replies)
    assert await balances(ledger, "ABCD") == {"A": 1000, "B": 1098, "C": 900, "D": 1000}
    audit = await ledger.audit()
    assert audit.ok and audit.transactions == 4 + 1 and audit.house["house:fees"] == 2


async def test_conflicting_repeat_refused(ledger: LedgerUnderTest) -> None:
    for p in "ABCD":
        await ledger.account(p, 1000)
    await ledger.stub.Settle(settle_request("g-c", HUNZHAN, [("A", 0), ("B", 10), ("C", -10),
                                                              ("D", 0)]))
    before = await balances(ledger, "ABCD")
    err = await refused(ledger.stub.Settle(settle_request(
        "g-c", HUNZHAN, [("A", 0), ("B", -10), ("C", 10), ("D", 0)])))
    assert err.code() == grpc.StatusCode.ALREADY_EXISTS
    assert reason_of(err) == "game_id_conflict"
    assert await balances(ledger, "ABCD") == before


async def snapshot(ledger: LedgerUnderTest, players: str | list[str],
                   ) -> tuple[dict[str, int], int, dict[str, int]]:
    audit = await ledger.audit()
    return await balances(ledger, players), audit.transactions, dict(audit.house)


async def test_bad_settlements_move_nothing(ledger: LedgerUnderTest) -> None:
    for p in "ABCD":
        await ledger.account(p, 1000)
    await ledger.stub.Settle(settle_request("g-used", HUNZHAN, [("A", 0), ("B", 10), ("C", -10),
                                                                 ("D", 0)]))
    before = await snapshot(ledger, "ABCD")
    four = [("A", 0), ("B", 10), ("C", -10), ("D", 0)]
    cases = [
        (settle_request("g-bad-1", HUNZHAN, []), grpc.StatusCode.INVALID_ARGUMENT, "no_seats"),
        (settle_request("g-bad-2", HUNZHAN, [("A", 0), ("B", 10), ("Nobody", -10)]),
         grpc.StatusCode.NOT_FOUND, "unknown_player"),
        (settle_request("g-bad-3", HUNZHAN, [("A", 7), ("B", -7)]),
         grpc.StatusCode.INVALID_ARGUMENT, "points_not_multiple_of_unit"),
        (settle_request("g-bad-4", common_pb2.SettlementTerms(base=-50, unit=5, fee_rate=0.02),
                        four), grpc.StatusCode.INVALID_ARGUMENT, "bad_terms"),
        (settle_request("g-bad-5", common_pb2.SettlementTerms(base=50, unit=0, fee_rate=0.02),
                        four), grpc.StatusCode.INVALID_ARGUMENT, "bad_terms"),
        (settle_request("g-bad-6", common_pb2.SettlementTerms(base=50, unit=5, fee_rate=1.5),
                        four), grpc.StatusCode.INVALID_ARGUMENT, "bad_terms"),
        (settle_request("", HUNZHAN, four), grpc.StatusCode.INVALID_ARGUMENT, "bad_reference"),
        (settle_request("g-bad-7", HUNZHAN, [("A", 10), ("A", -10)]),
         grpc.StatusCode.INVALID_ARGUMENT, "duplicate_player"),
        (settle_request("g-used", HUNZHAN, [("A", 5), ("B", 5), ("C", -10), ("D", 0)]),
         grpc.StatusCode.ALREADY_EXISTS, "game_id_conflict"),
    ]
    for request, code, reason in cases:
        err = await refused(ledger.stub.Settle(request))
        assert (err.code(), reason_of(err)) == (code, reason), request
    assert await snapshot(ledger, "ABCD") == before
    # A refused settlement does not use up its game id.
    await ledger.account("Nobody", 0)
    ok = await ledger.stub.Settle(settle_request("g-bad-2", HUNZHAN,
                                                 [("A", 0), ("B", 10), ("Nobody", -10)]))
    assert table(ok) == [("A", 0, 0, 0), ("B", 10, 0, 0), ("Nobody", -10, 0, 0)]


def _varint(n: int) -> bytes:
    out = b""
    while True:
        byte, n = n & 0x7F, n >> 7
        if n:
            out += bytes([byte | 0x80])
        else:
            return out + bytes([byte])


def _field(number: int, wire: int, payload: bytes) -> bytes:
    return _varint(number << 3 | wire) + payload


def _bytes_field(number: int, data: bytes) -> bytes:
    return _field(number, 2, _varint(len(data)) + data)


async def test_bad_amounts_move_nothing(ledger: LedgerUnderTest) -> None:
    await ledger.account("A", 1000)
    await ledger.account("B", 1000)
    before = await snapshot(ledger, "AB")
    for coins in (-5, 0):
        err = await refused(ledger.stub.Grant(ledger_pb2.GrantRequest(
            player="A", coins=coins, grant_id=f"g{coins}"), metadata=GRANT_MD))
        assert (err.code(), reason_of(err)) == (grpc.StatusCode.INVALID_ARGUMENT, "bad_amount")
    err = await refused(ledger.stub.Grant(ledger_pb2.GrantRequest(
        player="Nobody", coins=5, grant_id="g-nobody"), metadata=GRANT_MD))
    assert (err.code(), reason_of(err)) == (grpc.StatusCode.NOT_FOUND, "unknown_player")
    err = await refused(ledger.stub.ChargeFee(ledger_pb2.ChargeFeeRequest(
        charge_id="c-neg", players=["A"], coins=-20)))
    assert (err.code(), reason_of(err)) == (grpc.StatusCode.INVALID_ARGUMENT, "bad_amount")
    err = await refused(ledger.stub.ChargeFee(ledger_pb2.ChargeFeeRequest(
        charge_id="c-none", players=[], coins=20)))
    assert (err.code(), reason_of(err)) == (grpc.StatusCode.INVALID_ARGUMENT, "no_players")

    # A non-integer amount cannot be built with the Python stubs …
    with pytest.raises(TypeError):
        ledger_pb2.GrantRequest(player="A", coins=1.5)  # type: ignore[arg-type]
    # … but a client may put a double on the wire: coins 1.5 as a 64-bit field.
    grant = ledger.channel.unary_unary(
        "/paiju.ledger.v1.LedgerService/Grant", request_serializer=lambda b: b,
        response_deserializer=ledger_pb2.Account.FromString)
    raw = _bytes_field(1, b"A") + _field(2, 1, struct.pack("<d", 1.5)) + _bytes_field(4, b"x")
    err = await refused(grant(raw, metadata=GRANT_MD))
    assert (err.code(), reason_of(err)) == (grpc.StatusCode.INVALID_ARGUMENT, "bad_field_type")
    assert "coins" in (err.details() or "")
    # points 2.5 of a seat, as a double.
    settle = ledger.channel.unary_unary(
        "/paiju.ledger.v1.LedgerService/Settle", request_serializer=lambda b: b,
        response_deserializer=ledger_pb2.SettleResponse.FromString)
    seat_a = _field(1, 0, _varint(0)) + _bytes_field(2, b"A") + _field(3, 1, struct.pack("<d", 2.5))
    seat_b = _field(1, 0, _varint(1)) + _bytes_field(2, b"B")
    raw = (_bytes_field(1, b"g-float") + _bytes_field(2, HUNZHAN.SerializeToString())
           + _bytes_field(3, seat_a) + _bytes_field(3, seat_b))
    err = await refused(settle(raw))
    assert (err.code(), reason_of(err)) == (grpc.StatusCode.INVALID_ARGUMENT, "bad_field_type")
    assert "seats[0].points" in (err.details() or "")
    assert await snapshot(ledger, "AB") == before


async def test_grant_needs_the_key(ledger: LedgerUnderTest) -> None:
    await ledger.account("A", 0)
    for metadata in ((), (("x-paiju-grant-key", "wrong"),)):
        err = await refused(ledger.stub.Grant(ledger_pb2.GrantRequest(
            player="A", coins=100, grant_id="k"), metadata=metadata))
        assert (err.code(), reason_of(err)) == (grpc.StatusCode.PERMISSION_DENIED,
                                                "grant_key_required")
    assert await ledger.coins("A") == 0
    reply = await ledger.stub.Grant(ledger_pb2.GrantRequest(player="A", coins=100, grant_id="k"),
                                    metadata=GRANT_MD)
    assert reply.coins == 100
    again = await ledger.stub.Grant(ledger_pb2.GrantRequest(player="A", coins=100, grant_id="k"),
                                    metadata=GRANT_MD)
    assert again.coins == 100
    err = await refused(ledger.stub.Grant(ledger_pb2.GrantRequest(
        player="A", coins=999, grant_id="k"), metadata=GRANT_MD))
    assert (err.code(), reason_of(err)) == (grpc.StatusCode.ALREADY_EXISTS, "grant_id_conflict")
    assert await ledger.coins("A") == 100


async def test_no_call_fee_capped_and_idempotent(ledger: LedgerUnderTest) -> None:
    await ledger.account("A", 100)
    await ledger.account("B", 13)
    await ledger.account("C", 0)
    request = ledger_pb2.ChargeFeeRequest(charge_id="g9:no_call", players=["A", "B", "C"],
                                          coins=20, reason="no_call_fee", game_id="g9")
    reply = await ledger.stub.ChargeFee(request)
    assert [(r.player, r.coins, r.fee) for r in reply.rows] == [
        ("A", -20, 20), ("B", -13, 13), ("C", 0, 0)]
    again = await ledger.stub.ChargeFee(request)
    assert again.repeated and list(again.rows) == list(reply.rows)
    assert await balances(ledger, "ABC") == {"A": 80, "B": 0, "C": 0}
    audit = await ledger.audit()
    assert audit.ok and audit.house["house:room_fees"] == 33


async def test_accounts(ledger: LedgerUnderTest) -> None:
    first = await ledger.stub.OpenAccount(ledger_pb2.OpenAccountRequest(player="p1", name="一"))
    assert (first.player, first.name, first.coins) == ("p1", "一", 0)
    again = await ledger.stub.OpenAccount(ledger_pb2.OpenAccountRequest(player="p1", name="二"))
    assert (again.name, again.coins) == ("一", 0)
    err = await refused(ledger.stub.GetBalance(ledger_pb2.GetBalanceRequest(player="p2")))
    assert (err.code(), reason_of(err)) == (grpc.StatusCode.NOT_FOUND, "unknown_player")
    err = await refused(ledger.stub.OpenAccount(ledger_pb2.OpenAccountRequest(player="a.b")))
    assert (err.code(), reason_of(err)) == (grpc.StatusCode.INVALID_ARGUMENT, "bad_player_id")
    err = await refused(ledger.stub.GetHistory(ledger_pb2.GetHistoryRequest(player="p9")))
    assert err.code() == grpc.StatusCode.NOT_FOUND


async def test_health_serving(ledger: LedgerUnderTest) -> None:
    # Readiness waits for both dependencies (NATS connects in the background).
    await wait_health(ledger.addr, "SERVING", service="paiju.ledger.v1.LedgerService")
    assert ledger.ctx.health.deps == {"database": True, "nats": True}
    assert await health_status(ledger.addr, "liveness") == "SERVING"
