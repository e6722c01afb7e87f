"""Operators' adjustments and the player search (``paiju admin``)
through gRPC on a real ledger, on SQLite and on PostgreSQL, called as the
operator identity. From the issue: an adjustment needs a reason and is a
journal entry of its own kind against the house account, so the audit still
sums to zero; a refusal moves nothing."""

from __future__ import annotations

import json

import grpc
import pytest

from paiju.ledger.v1 import ledger_pb2
from tests.ledger.conftest import LedgerUnderTest, journalled
from tests.ledger.test_service import reason_of, refused

BY = (("x-paiju-operator", "ops-mei"),)


def adjustment(player: str, coins: int, reason: str = "refund", key: str = "a1"
               ) -> ledger_pb2.AdjustRequest:
    return ledger_pb2.AdjustRequest(player=player, coins=coins, reason=reason,
                                    adjustment_id=key)


async def test_adjustments_give_and_take_against_the_house_and_the_audit_holds(
        ledger: LedgerUnderTest, db_url: str) -> None:
    await ledger.account("P", 1000)
    given = await ledger.stub.Adjust(adjustment("P", 250, key="k1"), metadata=BY)
    assert (given.account.coins, given.repeated) == (1250, False)
    taken = await ledger.stub.Adjust(adjustment("P", -100, "chargeback", "k2"), metadata=BY)
    assert taken.account.coins == 1150
    history = await ledger.stub.GetHistory(ledger_pb2.GetHistoryRequest(player="P", limit=2))
    assert [(e.kind, e.reference, e.delta, e.balance_after) for e in history.entries] == [
        ("adjust", "k2", -100, 1150), ("adjust", "k1", 250, 1250)]
    audit = await ledger.audit()
    assert audit.ok and audit.journal_sum == 0
    assert audit.house["house:adjustments"] == -150 and audit.house["house:grants"] == -1000
    # the journal: the reason on the transaction, the operator in its stored
    # result, two entries summing to zero
    tx, posted = await journalled(db_url, "adjust", "k1")
    assert tx.reason == "refund"
    assert json.loads(tx.result_json) == {"coins": 250, "by": "ops-mei", "reason": "refund"}
    assert posted == [("house:adjustments", -250), ("player:P", 250)]


async def test_bad_adjustments_move_nothing(ledger: LedgerUnderTest) -> None:
    await ledger.account("Q", 300)
    before = await ledger.audit()
    cases = [
        (adjustment("Q", -301, key="b1"), grpc.StatusCode.FAILED_PRECONDITION,
         "not_enough_coins"),
        (adjustment("Q", 10, reason="", key="b2"), grpc.StatusCode.INVALID_ARGUMENT,
         "reason_required"),
        (adjustment("Q", 0, key="b3"), grpc.StatusCode.INVALID_ARGUMENT, "bad_amount"),
        (adjustment("Q", 10, key=""), grpc.StatusCode.INVALID_ARGUMENT, "bad_reference"),
        (adjustment("nobody", 10, key="b4"), grpc.StatusCode.NOT_FOUND, "unknown_player"),
        (adjustment("Q", 10, reason="x" * 65, key="b5"), grpc.StatusCode.INVALID_ARGUMENT,
         "bad_reference"),
    ]
    for request, code, reason in cases:
        e = await refused(ledger.stub.Adjust(request, metadata=BY))
        assert (e.code(), reason_of(e)) == (code, reason), request
    assert await ledger.coins("Q") == 300
    after = await ledger.audit()
    assert after.ok and after.transactions == before.transactions
    # the key of a refused take is free: the same take within the balance goes through
    ok = await ledger.stub.Adjust(adjustment("Q", -300, key="b1"), metadata=BY)
    assert ok.account.coins == 0


async def test_an_adjustment_is_applied_once_by_its_key(ledger: LedgerUnderTest) -> None:
    await ledger.account("R", 0)
    for _ in range(3):
        reply = await ledger.stub.Adjust(adjustment("R", 40, key="once"), metadata=BY)
    assert (reply.account.coins, reply.repeated) == (40, True)
    e = await refused(ledger.stub.Adjust(adjustment("R", 41, key="once"), metadata=BY))
    assert (e.code(), reason_of(e)) == (grpc.StatusCode.ALREADY_EXISTS,
                                        "adjustment_id_conflict")
    assert await ledger.coins("R") == 40


@pytest.mark.parametrize(("query", "found"), [
    ("dev-ab", ["dev-ab1", "dev-ab2"]),   # an id's start
    ("dev-ab1", ["dev-ab1"]),             # an id
    ("ann", ["dev-ab1", "zz-9"]),          # in the name, any case
    ("%", []),                            # a literal, not a wildcard
    ("_", []),                            # likewise
    ("dev-x_", ["dev-x_y"]),
])
async def test_find_accounts_by_id_or_name(ledger: LedgerUnderTest, query: str,
                                           found: list[str]) -> None:
    for player, name in (("dev-ab1", "Ann"), ("dev-ab2", "Bo"), ("zz-9", "joANNa"),
                         ("dev-x_y", "Cy")):
        await ledger.stub.OpenAccount(ledger_pb2.OpenAccountRequest(player=player, name=name))
    reply = await ledger.stub.FindAccounts(ledger_pb2.FindAccountsRequest(query=query))
    assert [a.player for a in reply.accounts] == found
    e = await refused(ledger.stub.FindAccounts(ledger_pb2.FindAccountsRequest(query=" ")))
    assert reason_of(e) == "bad_query"
