"""A sitting as a state machine over its log entries. No I/O.

A sitting is a room's game and its redeals (one lobby game id). Everything
that moves it is an entry (:mod:`services.table.domain.entries`); :meth:`Sitting.apply`
applies one and returns an :class:`Applied`: the events it caused, numbered,
the answer to an ``act`` and what the log stores beside the entry. Applying
the same entries in the same order gives the same state and the same events:
that is how a takeover rebuilds a game from its log (:func:`restore`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from services.table.domain.entries import (
    Act,
    Created,
    Disconnected,
    Entry,
    Finished,
    Handover,
    Leave,
    Level,
    Reconnected,
    Redeal,
    Resume,
    Takeover,
    Timer,
    Void,
    entry_of,
)
from services.table.domain.game import Answer, Outgoing, RunningGame
from services.table.domain.holds import Holds
from services.table.domain.options import TableOptions
from services.table.domain.outgoing import Seat
from services.table.domain.resync import level, views
from services.table.domain.spec import GameSpec, Terms


def spec_json(spec: GameSpec) -> dict[str, Any]:
    """``spec`` as the ``created`` entry stores it (the deal apart)."""
    return {
        "game_id": spec.game_id, "room": spec.room, "server": spec.server,
        "game": spec.game, "engine_options": spec.engine_options,
        "table_options": dataclasses.asdict(spec.table_options),
        "seats": [[s.seat, s.player, s.name] for s in spec.seats],
        "terms": dataclasses.asdict(spec.terms), "table_instance": spec.table_instance,
    }


def spec_of(data: dict[str, Any], deal: dict[str, Any] | None) -> GameSpec:
    """The :class:`GameSpec` a ``created`` entry stores."""
    return GameSpec(
        game_id=data["game_id"], room=data["room"], server=data["server"],
        game=data["game"], engine_options=dict(data["engine_options"]),
        table_options=TableOptions(**data["table_options"]),
        seats=tuple(Seat(int(a), str(b), str(c)) for a, b, c in data["seats"]),
        terms=Terms(**data["terms"]), deal=deal,
        table_instance=data.get("table_instance", ""))


@dataclass(frozen=True, slots=True)
class Applied:
    """What applying an entry gave: ``events`` (numbered, in order), ``answer``
    (an ``act``'s; ok for every other kind), and what the log stores beside
    the entry: ``seq`` (the public seq after it), ``player_seq`` (each
    player's seq after it) and ``actions`` (the records.md actions it applied,
    system ones too)."""

    events: list[Outgoing]
    answer: Answer
    seq: int
    player_seq: dict[str, int]
    actions: list[dict[str, Any]]

    def logged(self, entry: Entry) -> dict[str, Any]:
        """``entry`` as the log stores it, with what applying it gave."""
        return {**entry.json(), "seq": self.seq, "player_seq": self.player_seq,
                "actions": self.actions}


OK = Answer(True)


class Sitting:
    """The state of one sitting, built from its entries (the first :class:`Created`)."""

    def __init__(self, created: Created) -> None:
        self.spec = spec_of(created.spec, created.deal)
        self.table_instance = self.spec.table_instance
        self.redeals = 0
        self.no_call_streak = self.spec.table_options.no_call_streak
        #: The redeal fee (``no_call_fee``) is due before the next redeal.
        self.fee_due = False
        #: ``game_finished`` of the current deal went out (a ``finished`` entry).
        self.finished_logged = False
        self.handed_over_at: float | None = None
        at = created.at / 1000.0
        self.last_at = at
        self.holds = Holds(len(self.spec.seats), self.spec.table_options.reconnect_seconds, at)
        for seat, since in created.absent:
            self.holds.leave(int(seat), since / 1000.0)
        self.game = self._game(self.spec.game_id, created.deal, at)

    @property
    def game_id(self) -> str:
        """The sitting's game id (the lobby's; its log subject)."""
        return self.spec.game_id

    def _game(self, game_id: str, deal: dict[str, Any], at: float) -> RunningGame:
        return RunningGame(
            game_id=game_id, room=self.spec.room, server=self.spec.server, game=self.spec.game,
            engine_options=self.spec.engine_options, table_options=self.spec.table_options,
            seats=self.spec.seats, deal=deal, now=at, table_instance=self.table_instance,
            holds=self.holds)

    def first(self) -> Applied:
        """The :class:`Created` entry's events (the start); call once, right
        after construction, as :meth:`apply` does for the other entries."""
        return self._applied(self.game.start(self.last_at), 0)

    def apply(self, entry: Entry) -> Applied:
        """Apply one entry (not :class:`Created`). ``ValueError`` on a kind
        this sitting cannot apply."""
        at = entry.at / 1000.0
        self.last_at = max(self.last_at, at)
        game = self.game
        before = len(game.actions)
        answer = OK
        match entry:
            case Act():
                answer, out = game.act(entry.player, entry.action, list(entry.cards),
                                       entry.client_seq, at)
            case Timer():
                out = game.on_time(at)
            case Disconnected():
                out = game.disconnected(entry.player, at, entry.since / 1000.0)
            case Reconnected():
                out = game.reconnected(entry.player, at)
            case Leave():
                out = game.leave(entry.player, at)
            case Finished():
                out = [self._finished(entry)]
            case Redeal():
                out = self._redeal(entry, at)
                before = 0
            case Takeover():
                self.table_instance = game.table_instance = entry.address
                self.handed_over_at = None
                out = level(game, entry.stopped_at / 1000.0, at, moved_to=entry.address)
            case Resume():
                self.handed_over_at = None
                out = level(game, entry.stopped_at / 1000.0, at)
            case Void():
                out = game.void(at, entry.by, entry.why)
            case Handover():
                self.handed_over_at = at
                out = []
            case Level():
                out = views(game, at)
            case _:
                raise ValueError(f"a sitting cannot apply a {entry.kind!r} entry")
        return self._applied(out, before, answer)

    def _applied(self, out: list[Outgoing], before: int, answer: Answer = OK) -> Applied:
        game = self.game
        return Applied(out, answer, game.public_seq, dict(game.numbers.player_seq),
                       game.actions[before:])

    def _finished(self, entry: Finished) -> Outgoing:
        game = self.game
        event = game.finished_event(list(entry.rows))
        if entry.settlement_error:
            event.data["settlement_error"] = entry.settlement_error
        self.finished_logged = True
        after = game.engine.policy.redeal_fee_after
        if after:
            if game.reason == "redeal":
                self.no_call_streak += 1
                if self.no_call_streak >= after:
                    self.fee_due = True
                    self.no_call_streak = 0
            else:
                self.no_call_streak = 0
        return event

    def _redeal(self, entry: Redeal, at: float) -> list[Outgoing]:
        self.redeals += 1
        self.fee_due = False
        self.finished_logged = False
        self.game = self._game(entry.game_id, entry.deal, at)
        return self.game.start(at)


def restore(logged: list[dict[str, Any]]) -> Sitting:
    """The sitting that ``logged`` (its log as JSON, oldest first, the first
    ``created``) describes. Raises ``ValueError`` where an entry's recorded
    ``seq`` differs from the one its replay gives (a log this code cannot
    replay faithfully) or an entry is not of a known kind."""
    created = entry_of(logged[0])
    if not isinstance(created, Created):
        raise ValueError(f"a log begins with {created.kind!r}, not 'created'")
    sitting = Sitting(created)
    sitting.first()
    for data in logged[1:]:
        applied = sitting.apply(entry_of(data))
        if "seq" in data and data["seq"] != applied.seq:
            raise ValueError(f"log of {sitting.game_id}: entry {data['type']} at "
                             f"{data['at']} replays to seq {applied.seq}, "
                             f"logged {data['seq']}")
    return sitting

