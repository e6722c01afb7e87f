"""Bringing every seat of a game level after it stood still. No I/O.

A game stands still while nobody can append to its log: its owner died
(until another instance takes it over) or NATS was away (a pause). It stood
still from ``stopped_at`` (unix s) to ``now``. Then:

- every running turn clock goes on with the time it had left at
  ``stopped_at``, at least :data:`~services.table.domain.turns.RESUME_FLOOR_SECONDS`
  (10 s; a whole turn where ``turn_seconds`` is shorter); a turn stopped
  because its seat is away stays stopped with its time;
- the declaring window goes on the same way (the time it had left, at least
  10 s, at most the whole grace); a paced deal goes on with the card it was
  at, at its pace;
- disconnect holds are not moved: the time away counts (a spent budget
  escapes at once);
- after a takeover the public ``game_moved`` (``game_id``, ``table_instance``:
  the new owner's gRPC address) goes out, then each seat's player gets its
  whole ``view`` privately, and the public ``turn`` of each running turn
  with its new deadline.
"""

from __future__ import annotations

from services.table.domain.game import Outgoing, RunningGame
from services.table.domain.turns import RESUME_FLOOR_SECONDS


def _going_on(left: float, whole: float) -> float:
    return max(left, min(RESUME_FLOOR_SECONDS, whole))


def level(game: RunningGame, stopped_at: float, now: float, moved_to: str | None = None
          ) -> list[Outgoing]:
    """Move ``game``'s clocks as the module docstring says and return the
    events that tell everyone (``game_moved`` first when ``moved_to`` is the
    new owner's address). A finished game only gets ``game_moved``."""
    out: list[Outgoing] = []
    if moved_to is not None:
        out.append(game.numbers.public("game_moved", {
            "game_id": game.game_id, "table_instance": moved_to}))
    if game.finished:
        return out
    turns = game.turns
    for seat, deadline in list(turns.deadlines.items()):
        if seat not in turns.paused:
            turns.deadlines[seat] = now + _going_on(deadline - stopped_at, turns.turn_seconds)
    paced = game.paced
    shift = max(0.0, now - stopped_at)
    if paced.running:
        paced.started_at += shift
    else:
        end = paced.window_end()
        if end is not None:
            paced.done_at = now + _going_on(end - stopped_at, paced.grace) - paced.grace
    out += views(game, now)
    for seat in sorted(turns.deadlines):
        deadline = turns.deadlines[seat]
        if seat not in turns.paused:
            out.append(game.numbers.public("turn", {
                "seat": seat, "phase": game.engine.phase, "deadline": round(deadline * 1000),
                "can_pass": game.engine.can_pass(seat)}))
    return out


def views(game: RunningGame, now: float) -> list[Outgoing]:
    """Each seat's whole ``view`` at ``now``, privately (its ``player_seq`` is
    the event's own ``seq``); none for a finished game. Also what a ``level``
    entry gives: after the table's NATS connection came back, every seated
    client gets its view whatever it missed (:mod:`services.table.application.outage`)."""
    if game.finished:
        return []
    out: list[Outgoing] = []
    for s in game.seats:
        view = game.view(s.player, now)
        view["player_seq"] += 1
        out.append(game.numbers.private(s.player, "view", view))
    return out
