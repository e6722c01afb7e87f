"""The invariants bench/chaos.py checks at the end of a run, Jepsen-style:
each reads what the run left (the bots' captured frames, the table's
records, the ledger's journal, the lobby's log) and says whether it held.

- ``games``: every game a player saw start finished, or was voided with a
  reason (the table's ``void`` record, the lobby's "room recovered" log line);
  none may be voided, and no room may still be started once the players are
  done;
- ``settled_once``: every finished game was settled exactly once in the
  ledger and stored once in the table's records, and nothing was settled
  that is not a finished game;
- ``ledger_audit``: the ledger's own audit (``paiju admin audit``): the
  journal sums to zero, every balance equals its journal, no transaction
  unbalanced, no player below zero;
- ``seat_limits``: no seat held past its limits (bench/soak.py's
  :func:`~bench.soak.violations`, read through the gateway during the run);
- ``hidden_cards``: no captured frame of a seat shows a card it did not own
  (:func:`paiju.tools.hidden_cards.hidden_cards_shown`, each seat's frames
  with the cards the rules showed everyone merged in when they were shown;
  a ``view``'s own hand in that order, its other fields (and ``scores``,
  ``game_finished``) against the cards
  the record shows were played, declared or revealed, and its
  ``kitty_shown`` (doudizhu: its ``kitty``) against the kitty too);
- ``views``: what a player built from its events (game, public and private
  ``seq``, its hand) matches a fresh ``view`` at its turn, the last one at
  its last game.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import text

from paiju.runtime.db import make_engine
from paiju.tools.bots import sitting
from paiju.tools.hidden_cards import (
    PUBLIC_CARDS,
    CapturingBot,
    card_lists,
    hidden_cards_shown,
    of_game,
)

ROOT = Path(__file__).resolve().parent.parent
#: A card the rules showed everyone counts as known this long before a seat
#: received it (seconds): another seat may get the public event a moment
#: before this one gets a ``view`` holding the card.
SHOWN_SLACK_S = 1.0
#: Record reasons that end no game: a redeal's deal, an operator's void.
NOT_FINISHED = ("redeal", "void")
#: Record actions whose cards the rules show to everyone.
PUBLIC_MOVES = ("play", "declare", "reveal")
#: Frames that sum up cards played before (captured points, the end): checked,
#: as a view's public fields, against the record's public moves.
SUMMARIES = ("scores", "game_finished")

#: Who takes the kitty, from the result's detail (records.md): doudizhu's
#: landlord, shengji's dealer; hunzhan and daa have none.
KITTY_OWNER = {"doudizhu": "landlord", "shengji": "dealer"}


@dataclass
class Check:
    """One invariant's outcome: ``ok``, a line of figures, and what broke it."""

    name: str
    ok: bool
    figures: str
    problems: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Record:
    """One game record the table stored: its game, room, reason and the
    record itself (records.md: ``deal`` with ``hands`` and ``bottom`` …)."""

    game: str
    room: str
    reason: str
    record: dict[str, Any]


@dataclass
class Stored:
    """What the stores hold at the end: the table's records (game id ->
    :class:`Record`) and the ledger's settlements (``reference`` -> how many)."""

    records: dict[str, Record]
    settled: Counter[str]

    def ids(self, finished: bool) -> set[str]:
        """The game ids of the records that end a game (``finished``), or of the others."""
        return {g for g, r in self.records.items() if (r.reason not in NOT_FINISHED) == finished}


async def read_stores(table_url: str, ledger_url: str) -> Stored:
    """Read the table's game records and the ledger's settlements (SQLAlchemy
    URLs, SQLite or PostgreSQL)."""
    records: dict[str, Record] = {}
    engine = make_engine(table_url, pool_size=1)
    try:
        async with engine.connect() as c:
            rows = await c.execute(text(
                "SELECT game_id, game, room, reason, record_json FROM table_game_records"))
            for gid, game, room, reason, record in rows:
                records[str(gid)] = Record(str(game), str(room), str(reason), json.loads(record))
    finally:
        await engine.dispose()
    engine = make_engine(ledger_url, pool_size=1)
    try:
        async with engine.connect() as c:
            settled = Counter(str(ref) for (ref,) in await c.execute(text(
                "SELECT reference FROM ledger_transactions WHERE kind = 'settle'")))
    finally:
        await engine.dispose()
    return Stored(records, settled)


def lobby_voids(log: Path) -> dict[str, str]:
    """The games the lobby's reconciler voided, as its log (JSON lines, every
    run of the lobby appended) says: game id -> reason."""
    out: dict[str, str] = {}
    if not log.exists():
        return out
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        if "room recovered" not in line:
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        out[str(entry.get("game_id"))] = str(entry.get("reason"))
    return out


def started_games(bots: Sequence[CapturingBot]) -> set[str]:
    """The games (lobby ids: a deal and its redeals are one) whose
    ``game_started`` any player received."""
    return {sitting(str(e["game_id"])) for b in bots for e in b.events
            if e.get("type") == "game_started" and e.get("game_id")}


def check_games(started: set[str], stored: Stored, voided_by_lobby: dict[str, str],
                started_at_end: dict[str, str]) -> Check:
    """Every started game finished or was voided with a reason; none voided;
    no room still started once the players were done (``started_at_end``:
    room -> game id, the lobby's rooms then)."""
    finished = {sitting(g) for g in stored.ids(finished=True)}
    voided = {sitting(g): "void (operator)" for g, r in stored.records.items()
              if r.reason == "void"} | voided_by_lobby
    lost = sorted(started - finished - set(voided))
    problems = [f"game {g} started and neither finished nor voided" for g in lost]
    problems += [f"room {room} still started at the end, its game {g} "
                 f"{'finished' if g in finished else 'never finished nor voided'}"
                 for room, g in sorted(started_at_end.items())]
    problems += [f"game {g} voided: {why}" for g, why in sorted(voided.items())]
    return Check("games", not problems,
                 f"{len(started)} started, {len(finished & started)} finished, "
                 f"{len(voided)} voided, {len(lost)} lost, {len(started_at_end)} rooms "
                 "still started at the end", problems)


def check_settled_once(stored: Stored) -> Check:
    """Each finished game settled exactly once and stored once; no
    settlement of anything else."""
    finished = stored.ids(finished=True)
    finals = Counter(sitting(g) for g in finished)
    problems = [f"game {g} stored {n} times" for g, n in sorted(finals.items()) if n != 1]
    problems += [f"game {g} settled {stored.settled[g]} times" for g in sorted(finished)
                 if stored.settled[g] != 1]
    problems += [f"settlement {r} of no finished game" for r in sorted(set(stored.settled)
                                                                        - finished)]
    return Check("settled_once", not problems,
                 f"{len(finished)} finished games, {sum(stored.settled.values())} settlements",
                 problems)


def ledger_audit(env: dict[str, str]) -> Check:
    """``paiju admin audit`` against the platform of ``env`` (its port base
    and data folder): every balance recomputed from the journal, the sum zero."""
    run = subprocess.run([sys.executable, "-m", "paiju.cli", "admin", "audit"], env=env,
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    try:
        audit: dict[str, Any] = json.loads(run.stdout)
    except ValueError:
        return Check("ledger_audit", False, "no answer",
                     [f"paiju admin audit: status {run.returncode}: {run.stderr.strip()[-500:]}"])
    problems = [f"{key}: {audit[key]}" for key in
                ("mismatched_accounts", "unbalanced_transactions", "negative_accounts")
                if audit.get(key)]
    if int(audit.get("journal_sum", 0)):
        problems.append(f"journal sums to {audit['journal_sum']}")
    return Check("ledger_audit", bool(audit.get("ok")) and not problems,
                 f"{audit.get('accounts')} accounts, {audit.get('transactions')} transactions, "
                 f"journal sum {audit.get('journal_sum')}", problems)


def check_seat_limits(found: list[str], checks: int) -> Check:
    """The seat-limit breaches the run's monitor saw (``checks`` reads of every room)."""
    return Check("seat_limits", not found, f"{checks} reads of every room, "
                 f"{len(found)} breaches", found[:50])


def _seat_frames(bot: CapturingBot, table: list[CapturingBot],
                 game_id: str) -> list[dict[str, Any]]:
    """``bot``'s frames of ``game_id`` with the cards the rules showed anyone
    at its table merged in at the time they were shown (less
    :data:`SHOWN_SLACK_S`): a seat that missed a public event and got a
    ``view`` instead knows those cards too. Each public event counts once
    (by its ``seq``)."""
    mine = _timed_of_game(bot, game_id)
    seen = {e.get("seq") for _, e in mine if e.get("type") in PUBLIC_CARDS}
    shown: dict[Any, tuple[float, dict[str, Any]]] = {}
    for other in table:
        for t, e in _timed_of_game(other, game_id):
            if e.get("type") in PUBLIC_CARDS and e.get("seq") not in seen:
                shown.setdefault(e.get("seq"), (t - SHOWN_SLACK_S, e))
    merged = sorted([*mine, *shown.values()], key=lambda te: te[0])
    return [e for _, e in merged]


def _split_views(frames: list[dict[str, Any]]) -> tuple[list[dict[str, Any]],
                                                        list[dict[str, Any]]]:
    """``frames`` with each ``view`` reduced to its own ``hand`` (checked in
    order with the rest), and apart the views' other fields and the
    :data:`SUMMARIES`: sent after events were lost, they show cards played
    in them, which no captured frame showed before."""
    walk, views = [], []
    for e in frames:
        if e.get("type") == "view":
            walk.append({"type": "view", "hand": e.get("hand") or []})
            views.append({k: v for k, v in e.items() if k != "hand"})
        elif e.get("type") in SUMMARIES:
            views.append(e)
        else:
            walk.append(e)
    return walk, views


def _views_shown(views: list[dict[str, Any]], own: list[str], kitty: list[str] | None,
                 record: dict[str, Any], game: str) -> list[str]:
    """The cards of ``views`` (their fields but the hand) beyond the seat's
    own, its kitty and every card the game's record shows was played,
    declared or revealed (public moves); a field of the kitty (``kitty_shown``;
    doudizhu's ``kitty``, shown to all once the landlord takes it) may also
    hold the kitty's cards."""
    public = Counter(c for a in record.get("actions") or [] if a.get("type") in PUBLIC_MOVES
                     for c in a.get("cards") or [])
    known = Counter(own) + Counter(kitty or []) + public
    shown_kitty = known + Counter((record.get("deal") or {}).get("bottom") or [])
    return [f"view{path} shows {sorted((Counter(cards) - k).elements())}"
            for v in views for path, cards in card_lists(v)
            for k in [shown_kitty if _public_kitty(path, game) else known]
            if Counter(cards) - k]


def _public_kitty(path: str, game: str) -> bool:
    """Is the card list at ``path`` of a view the kitty as shown to everyone?"""
    return path.startswith(".kitty_shown") or (
        game == "doudizhu" and path.startswith((".kitty", ".display.kitty")))


def _timed_of_game(bot: CapturingBot, game_id: str) -> list[tuple[float, dict[str, Any]]]:
    """:func:`~paiju.tools.hidden_cards.of_game` of ``bot``'s frames, with
    when each arrived."""
    keep = {id(e) for e in of_game(bot.events, game_id)}
    return [(t, e) for t, e in zip(bot.arrived, bot.events, strict=True) if id(e) in keep]


def check_hidden_cards(bots: Sequence[CapturingBot], stored: Stored) -> Check:
    """No frame any seat received of a stored game shows a card it did not
    own, as the record's deal says."""
    tables: dict[str, list[CapturingBot]] = {}
    for b in bots:
        tables.setdefault(b.room, []).append(b)
    checked, games, problems = 0, 0, []
    for game_id, r in sorted(stored.records.items()):
        game, table = r.game, tables.get(r.room, [])
        deal = r.record.get("deal") or {}
        hands = deal.get("hands") or []
        if not table or not hands:
            continue
        games += 1
        owner = _kitty_owner(table, game_id, game)
        for b in table:
            frames = _seat_frames(b, table, game_id)
            if not frames or b.seat >= len(hands):
                continue
            own = list(hands[b.seat])
            kitty = deal.get("bottom") if b.seat == owner else None
            held = own[-1] if game == "daa" else None
            walk, views = _split_views(frames)
            n, shown = hidden_cards_shown(walk, own, kitty, held)
            shown += _views_shown(views, own, kitty, r.record, game)
            checked += n + len(views)
            problems += [f"{game_id} seat {b.seat}: {s}" for s in shown]
    return Check("hidden_cards", not problems,
                 f"{checked} card lists of {games} games checked", problems[:50])


def _kitty_owner(table: list[CapturingBot], game_id: str, game: str) -> int | None:
    """The seat that took the kitty of ``game_id``, from its ``game_finished``
    result as any seat of ``table`` received it (None: nobody, or not known)."""
    if game not in KITTY_OWNER:
        return None
    for b in table:
        for e in b.events:
            if e.get("type") == "game_finished" and e.get("game_id") == game_id:
                detail = (e.get("result") or {}).get("detail") or {}
                owner = detail.get(KITTY_OWNER[game])
                return owner if isinstance(owner, int) else None
    return None


def check_views(compared: int, last: int, players: int, mismatches: list[str]) -> Check:
    """The players' views compared with the server's: ``compared`` in all,
    ``last`` of the ``players`` compared at their last game."""
    return Check("views", not mismatches,
                 f"{compared} views compared, {last} of {players} players at their last game, "
                 f"{len(mismatches)} mismatches", mismatches[:50])


def run_checks(bots: Sequence[CapturingBot], stored: Stored, data: Path,
               started_at_end: dict[str, str], env: dict[str, str],
               monitor: tuple[list[str], int], views: tuple[int, int, list[str]]) -> list[Check]:
    """Every invariant of the module docstring, in its order (``data``: the
    platform's data folder, its logs in ``data/logs``)."""
    return [check_games(started_games(bots), stored, lobby_voids(data / "logs" / "lobby.log"),
                        started_at_end),
            check_settled_once(stored), ledger_audit(env),
            check_seat_limits(*monitor), check_hidden_cards(bots, stored),
            check_views(views[0], views[1], len(bots), views[2])]


def admin_env(base: int, data: Path) -> dict[str, str]:
    """The environment ``paiju admin`` needs for the run's platform: its
    port base and data folder (certificates in ``data/tls``), nothing that
    would send it elsewhere."""
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_ADDR", "_ADDRS"))
           and k not in ("PAIJU_TLS_DIR", "PAIJU_HOST")}
    return env | {"PAIJU_UP_PORT_BASE": str(base), "PAIJU_DATA_DIR": str(data)}


def read(table_url: str, ledger_url: str) -> Stored:
    """:func:`read_stores`, from synchronous code."""
    return asyncio.run(read_stores(table_url, ledger_url))
