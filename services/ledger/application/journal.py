"""The journal's writes: the idempotent transaction row, the account locks and
the postings of one change.

Every change is one unit of work of two steps around the settlement rule,
through a :class:`Writer`:

1. ``open`` inserts its ``ledger_transactions`` row first. The unique key
   (kind, reference) makes a repeat insert nothing, inside the database (a
   concurrent insert of the same key waits for the other transaction's
   outcome), never by check-then-insert; a repeat raises :class:`Repeat` and
   locks nothing, and the caller (services/ledger/application/postings.py) answers with
   the stored result when the content hash matches (else ``game_id_conflict``
   / ``grant_id_conflict`` / ``charge_id_conflict``). Then it locks the players' accounts in account
   order (``SELECT … FOR UPDATE … ORDER BY account``).
2. ``close`` updates the balances (``balance = balance + delta``, guarded by
   ``balance + delta >= 0`` for players), writes the entries (they sum to
   zero), the ``balance_changed`` events into the outbox and the stored
   result. The house accounts are locked here, last, one at a time in key
   order, so that the hot house rows stay locked only until the commit and
   every change takes its locks in one global order (players by account,
   then house accounts by key): no deadlock between changes.

PostgreSQL (services/ledger/adapters/journal_pg.py) does each step in one statement
in pipeline mode (services/ledger/adapters/pgpipe.py): BEGIN goes out with the first,
COMMIT behind the second, so a settlement is two round trips. SQLite
(services/ledger/adapters/journal_sql.py) writes the same rows statement by
statement through SQLAlchemy (its writers are serialised anyway).
A retry after an unknown commit outcome is safe: the transaction
row makes it a repeat.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from services.ledger.adapters.models import player_account
from services.ledger.domain.errors import NOT_FOUND, LedgerError


class Repeat(Exception):
    """The transaction row exists already (raised inside the unit of work)."""


def content_hash(content: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of ``content`` as canonical JSON: what makes two requests
    with one idempotency key "the same"."""
    blob = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(blob.encode()).hexdigest()


@dataclass(frozen=True)
class Tally:
    """What a settlement adds to history and rankings (services/ledger/adapters/models.py
    ``ledger_seats``, ``ledger_wins_daily``): its coin ``server``, the UTC
    ``day`` (unix ms // DAY_MS) and per seat (player, seat, points, coins
    after the fee, fee)."""

    server: str
    day: int
    rows: tuple[tuple[str, int, int, int, int], ...]

    def columns(self) -> tuple[list[str], list[int], list[int], list[int], list[int]]:
        """The rows as columns: accounts, seats, points, coins, fees."""
        return ([player_account(r[0]) for r in self.rows], [r[1] for r in self.rows],
                [r[2] for r in self.rows], [r[3] for r in self.rows],
                [r[4] for r in self.rows])


class Writer(Protocol):
    """The two steps of a change inside one unit of work."""

    async def open(self, kind: str, reference: str, digest: str, now: int,
                   players: Sequence[str], game: str = "", reason: str = "",
                   server: str = "", room: str = "", played_ms: int = 0,
                   ) -> tuple[int, dict[str, int]]:
        """Insert the transaction row of ``kind``/``reference`` (content hash
        ``digest``, created at ``now`` ms; a settlement's ``server``, ``room``
        and time played, ``played_ms``) and lock ``players``' accounts in account order;
        (transaction id, player → balance). Raises :class:`Repeat` if the key
        exists, ``unknown_player`` (NOT_FOUND) if a player has no account."""
        ...

    async def claim(self, player: str, day: int, per_day: int) -> int | None:
        """Count one relief claim of ``player`` on the relief day starting at
        ``day`` (unix ms), unless ``per_day`` were counted already: the day's
        count after it, or None when the day's claims are spent (nothing
        counted). Called between ``open`` and ``close``: the player's lock
        serialises it, and the count's row is its own lock besides."""
        ...

    async def close(self, txid: int, balances: Mapping[str, int],
                    player_deltas: Mapping[str, int], house_deltas: Mapping[str, int],
                    result_json: str, events: Sequence[dict[str, Any]], now: int,
                    tally: Tally | None = None) -> None:
        """Post transaction ``txid``: apply the deltas (``balances``: the
        players' locked balances before), write the entries, the ``events``
        (outbox, at ``now`` ms), ``result_json`` (the answer to repeats) and a
        settlement's ``tally`` (its seats and the daily coins won; the
        players' locks held here serialise the tally's rows too).
        Raises AssertionError if the deltas do not sum to zero or would take a
        player below zero (the settlement rules never do)."""
        ...


def balances_of(players: Sequence[str], found: Mapping[str, int]) -> dict[str, int]:
    """player → balance from ``found`` (account key → balance); raises
    ``unknown_player`` (NOT_FOUND) naming every player without an account."""
    missing = sorted(p for p in players if player_account(p) not in found)
    if missing:
        raise LedgerError(NOT_FOUND, "unknown_player", f"no account for {', '.join(missing)}")
    return {p: found[player_account(p)] for p in players}


def postings(txid: int, player_deltas: Mapping[str, int], house_deltas: Mapping[str, int],
             ) -> tuple[dict[str, int], list[tuple[str, int]]]:
    """The non-zero deltas of transaction ``txid``: players' (account key →
    delta) and the house's ((key, delta) in key order). Raises AssertionError
    if they do not sum to zero."""
    moved = {player_account(p): d for p, d in player_deltas.items() if d}
    house = sorted((a, d) for a, d in house_deltas.items() if d)
    if sum(moved.values()) + sum(d for _, d in house) != 0:
        raise AssertionError(f"transaction {txid} does not sum to zero: {moved} {house}")
    return moved, house
