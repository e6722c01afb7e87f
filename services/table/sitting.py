"""A sitting as a state machine over its log entries. No I/O.

A sitting is a room's game and its redeals (one lobby game id). Everything
that moves it is an entry (a JSON object; ``at`` is unix ms, the time the
table used for it); :meth:`Sitting.apply` applies one and returns the events
it caused, numbered. Applying the same entries in the same order gives the
same state and the same events: that is how a takeover rebuilds a game from
its log (:func:`restore`). Entries (``type``):

- ``created``: ``spec`` (what CreateGame got: game, options, seats, room
  terms …), ``deal``, ``absent`` (``[[seat, since_ms]]`` held from the start);
  the game starts.
- ``act``: a player's accepted action (``player``, ``action``, ``client_seq``).
- ``timer``: what the timers did by ``at`` (timeouts, escapes of spent
  holds, end of declaring, cards of a paced deal).
- ``disconnected`` (``player``, ``since`` ms), ``reconnected``, ``leave``
  (``player``): seat holds and escapes.
- ``finished``: ``game_finished`` of the current deal (``rows``, the
  settlement table, ``settlement_error``).
- ``redeal``: the next deal of the sitting (``game_id``, ``deal``).
- ``takeover`` (``instance``, ``address``, ``stopped_at`` ms) and ``resume``
  (``stopped_at``): an instance goes on with the game after it stood still
  (:func:`services.table.level.level`); ``takeover`` also publishes ``game_moved``.
- ``handover`` (``instance``): the owner gave the game up (SIGTERM); nothing moves.
- ``void`` (``by``, ``why``): an operator ended the current deal without a
  result (``paiju admin end-game``); its ending follows.
- ``level``: every seat's whole ``view``, privately, nothing moves
  (:func:`services.table.level.views`; after the table's NATS connection
  came back, :mod:`services.table.outage`).

After :meth:`Sitting.apply` the entry carries ``seq`` (the public seq after
it), ``player_seq`` (each player's seq after it) and ``actions`` (the
records.md actions it applied, system ones too).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from services.table.game import Answer, Outgoing, RunningGame
from services.table.holds import Holds
from services.table.level import level, views
from services.table.options import TableOptions
from services.table.outgoing import Seat, ms
from services.table.spec import GameSpec, Terms


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


class Sitting:
    """The state of one sitting, built from its entries (the first ``created``)."""

    def __init__(self, created: dict[str, Any]) -> None:
        self.spec = spec_of(created["spec"], created["deal"])
        self.table_instance = self.spec.table_instance
        self.redeals = 0
        self.no_call_streak = self.spec.table_options.no_call_streak
        #: The redeal fee (``no_call_fee``) is due before the next redeal.
        self.fee_due = False
        #: ``game_finished`` of the current deal went out (a ``finished`` entry).
        self.finished_logged = False
        self.handed_over_at: float | None = None
        self.last_answer = Answer(True)
        at = created["at"] / 1000.0
        self.last_at = at
        self.holds = Holds(len(self.spec.seats), self.spec.table_options.reconnect_seconds, at)
        for seat, since in created.get("absent", []):
            self.holds.leave(int(seat), since / 1000.0)
        self.game = self._game(self.spec.game_id, created["deal"], at)
        self._created = created

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

    def first(self) -> list[Outgoing]:
        """The ``created`` entry's events (the start); call once, right after
        construction, as :meth:`apply` does for the other entries."""
        return self._seal(self._created, self.game.start(self.last_at), 0)

    def apply(self, entry: dict[str, Any]) -> list[Outgoing]:
        """Apply one entry (not ``created``; see the module docstring) and return
        its events. ``act`` also sets :attr:`last_answer`. Raises ``KeyError`` /
        ``ValueError`` on an entry of an unknown type."""
        at = entry["at"] / 1000.0
        self.last_at = max(self.last_at, at)
        game = self.game
        before = len(game.actions)
        kind = entry["type"]
        out: list[Outgoing]
        if kind == "act":
            a = entry["action"]
            self.last_answer, out = game.act(entry["player"], a["type"], a.get("cards", []),
                                             int(entry.get("client_seq", 0)), at)
        elif kind == "timer":
            out = game.on_time(at)
        elif kind == "disconnected":
            out = game.disconnected(entry["player"], at, entry["since"] / 1000.0)
        elif kind == "reconnected":
            out = game.reconnected(entry["player"], at)
        elif kind == "leave":
            out = game.leave(entry["player"], at)
        elif kind == "finished":
            out = [self._finished(entry)]
        elif kind == "redeal":
            out = self._redeal(entry, at)
            before = 0
        elif kind in ("takeover", "resume"):
            if kind == "takeover":
                self.table_instance = entry["address"]
                game.table_instance = entry["address"]
            self.handed_over_at = None
            out = level(game, entry["stopped_at"] / 1000.0, at,
                        moved_to=entry["address"] if kind == "takeover" else None)
        elif kind == "void":
            out = game.void(at, str(entry["by"]), str(entry["why"]))
        elif kind == "handover":
            self.handed_over_at = at
            out = []
        elif kind == "level":
            out = views(game, at)
        else:
            raise ValueError(f"unknown log entry type {kind!r}")
        return self._seal(entry, out, before)

    def _seal(self, entry: dict[str, Any], out: list[Outgoing], before: int
              ) -> list[Outgoing]:
        game = self.game
        entry["seq"] = game.public_seq
        entry["player_seq"] = dict(game.numbers.player_seq)
        entry["actions"] = game.actions[before:]
        return out

    def _finished(self, entry: dict[str, Any]) -> Outgoing:
        game = self.game
        event = game.finished_event(list(entry.get("rows", [])))
        if entry.get("settlement_error"):
            event.data["settlement_error"] = entry["settlement_error"]
        self.finished_logged = True
        after = game.engine.redeal_fee_after
        if after:
            if game.reason == "redeal":
                self.no_call_streak += 1
                if self.no_call_streak >= after:
                    self.fee_due = True
                    self.no_call_streak = 0
            else:
                self.no_call_streak = 0
        return event

    def _redeal(self, entry: dict[str, Any], at: float) -> list[Outgoing]:
        self.redeals += 1
        self.fee_due = False
        self.finished_logged = False
        self.game = self._game(entry["game_id"], entry["deal"], at)
        return self.game.start(at)


def restore(entries: list[dict[str, Any]]) -> Sitting:
    """The sitting that ``entries`` (its log, oldest first, the first ``created``)
    describe. Raises ``ValueError`` where an entry's recorded ``seq`` differs
    from the one its replay gives (a log this code cannot replay faithfully)."""
    sitting = Sitting(dict(entries[0]))
    sitting.first()
    for logged in entries[1:]:
        entry = dict(logged)
        sitting.apply(entry)
        if "seq" in logged and logged["seq"] != entry["seq"]:
            raise ValueError(f"log of {sitting.game_id}: entry {logged['type']} at "
                             f"{logged['at']} replays to seq {entry['seq']}, "
                             f"logged {logged['seq']}")
    return sitting


def now_ms(t: float) -> int:
    """Unix seconds ``t`` as the unix ms an entry's ``at`` carries."""
    return ms(t)
