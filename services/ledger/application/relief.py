"""Relief coins (救济金): a grant to a player below a threshold, capped per
relief day, paid from ``house:relief`` (services/ledger/domain/relief.py has
the rules).

One idempotent unit of work, as every posting
(services/ledger/application/postings.py): the transaction row of kind
``relief`` with reference ``<player>/<claim_id>`` and the player's lock
(``Writer.open``), the balance checked against the threshold, the day's
claim counted (``Writer.claim``), then the postings, the
``balance_changed`` event (reason ``relief``) and the stored answer
(``Writer.close``). A refusal rolls all of it back: the claim id is not
used up and nothing moves. Concurrent claims of one player (two ids, a
double click) wait for each other on the player's lock (PostgreSQL
``FOR UPDATE``; SQLite's single writer), so the cap holds.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from services.ledger.adapters.models import HOUSE_RELIEF
from services.ledger.application import journal
from services.ledger.application.postings import Postings, once
from services.ledger.domain import relief as rules
from services.ledger.domain.errors import FAILED_PRECONDITION, RESOURCE_EXHAUSTED, LedgerError
from services.ledger.domain.settlement import check_player

#: The refusal of a balance at or above the threshold.
NOT_ELIGIBLE = "not_eligible"
#: The refusal of a claim beyond the day's number.
SPENT = "relief_spent"


@dataclass(frozen=True)
class Granted:
    """A claim's answer: the player's ``balance`` after it, the ``coins``
    granted, ``claims_left`` that relief day, ``day_ends_ms`` (unix ms: when
    claims are counted anew) and whether it was a repeat of a claim already
    granted (the stored answer)."""

    balance: int
    coins: int
    claims_left: int
    day_ends_ms: int
    repeated: bool


def _granted(result_json: str, repeated: bool) -> Granted:
    data = json.loads(result_json)
    return Granted(int(data["balance"]), int(data["coins"]), int(data["claims_left"]),
                   int(data["day_ends_ms"]), repeated)


async def grant_relief(postings: Postings, player: str, claim_id: str,
                       policy: rules.Policy) -> Granted:
    """Grant ``player`` ``policy.coins`` from ``house:relief`` if its balance
    is below ``policy.below`` and it has claimed fewer than
    ``policy.per_day`` times this relief day; idempotent by (``player``,
    ``claim_id``). Errors (nothing moved, the claim id not used up):
    INVALID_ARGUMENT ``bad_player_id``, ``bad_claim_id``, ``bad_amount``,
    ``bad_policy``; NOT_FOUND ``unknown_player``; FAILED_PRECONDITION
    ``not_eligible`` (balance >= below); RESOURCE_EXHAUSTED ``relief_spent``
    (the day's claims are used); ALREADY_EXISTS ``claim_id_conflict`` (the
    same claim id with another amount)."""
    check_player(player)
    rules.check(policy, claim_id)
    reference = f"{player}/{claim_id}"
    digest = journal.content_hash({"player": player, "coins": policy.coins})
    uow = postings.uow

    async def work(w: journal.Writer) -> Granted:
        now = uow.clock()
        txid, balances = await w.open("relief", reference, digest, now, [player],
                                      reason="relief")
        balance = balances[player]
        if balance >= policy.below:
            raise LedgerError(FAILED_PRECONDITION, NOT_ELIGIBLE,
                              f"{player} has {balance} coins; relief is for fewer than "
                              f"{policy.below}")
        day = rules.day_start(now, policy.day_starts_utc_hour)
        claims = await w.claim(player, day, policy.per_day)
        if claims is None:
            raise LedgerError(RESOURCE_EXHAUSTED, SPENT,
                              f"{player} has claimed relief {policy.per_day} times today")
        granted = Granted(balance + policy.coins, policy.coins, policy.per_day - claims,
                          day + rules.DAY_MS, False)
        await w.close(
            txid, balances, {player: policy.coins}, {HOUSE_RELIEF: -policy.coins},
            json.dumps({"balance": granted.balance, "coins": granted.coins,
                        "claims_left": granted.claims_left,
                        "day_ends_ms": granted.day_ends_ms}),
            [{"player": player, "coins": granted.balance, "delta": policy.coins,
              "reason": "relief", "game_id": ""}], now)
        return granted

    return await once(uow, "relief", reference, digest, work,
                      lambda stored: _granted(stored, True))
