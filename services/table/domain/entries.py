"""A sitting's log entries, one frozen dataclass per kind. No I/O.

Everything that moves a sitting is an entry, appended to its log as a JSON
object (``type`` names the kind; ``at`` is unix ms, the time the table used
for it). :func:`entry_of` reads one back and :meth:`json` writes it; the JSON
shape is what the log has always held, so a log written before these types
replays unchanged. Kinds:

- :class:`Created`: ``spec`` (what CreateGame got: game, options, seats, room
  terms …), ``deal``, ``absent`` (``[[seat, since_ms]]`` held from the start);
  the game starts.
- :class:`Act`: a player's accepted action (``player``, ``action`` as
  ``{"type", "cards"}``, ``client_seq``).
- :class:`Timer`: what the timers did by ``at`` (timeouts, escapes of spent
  holds, end of declaring, cards of a paced deal).
- :class:`Disconnected` (``player``, ``since`` ms), :class:`Reconnected`,
  :class:`Leave` (``player``): seat holds and escapes.
- :class:`Finished`: ``game_finished`` of the current deal (``rows``, the
  settlement table, ``settlement_error``).
- :class:`Redeal`: the next deal of the sitting (``game_id``, ``deal``).
- :class:`Takeover` (``instance``, ``address``, ``stopped_at`` ms) and
  :class:`Resume` (``stopped_at``): an instance goes on with the game after
  it stood still; a takeover also publishes ``game_moved``.
- :class:`Handover` (``instance``): the owner gave the game up (SIGTERM);
  nothing moves.
- :class:`Void` (``by``, ``why``): an operator ended the current deal without
  a result (``paiju admin end-game``).
- :class:`Level`: every seat's whole ``view``, privately; nothing moves.

A logged entry also carries what applying it gave (``seq``, ``player_seq``,
``actions``: :meth:`services.table.domain.sitting.Applied.logged`); :func:`entry_of`
ignores those.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar


@dataclass(frozen=True, slots=True)
class Entry:
    """What every entry has: ``at``, unix ms."""

    kind: ClassVar[str]
    at: int

    def json(self) -> dict[str, Any]:
        """The entry as the log stores it: ``{"type": kind, field: value …}``."""
        return {"type": self.kind, **{f.name: getattr(self, f.name)
                                      for f in dataclasses.fields(self)}}

    @classmethod
    def of(cls, data: dict[str, Any]) -> Entry:
        """The entry ``data`` (its JSON) holds. ``KeyError`` where a field is missing."""
        return cls(**{f.name: data[f.name] if f.default is dataclasses.MISSING
                      else data.get(f.name, f.default) for f in dataclasses.fields(cls)})


@dataclass(frozen=True, slots=True)
class Created(Entry):
    """The sitting's first entry (``spec``: ``sitting.spec_json``; ``deal``:
    the engine's deal; ``absent``: ``[[seat, since_ms]]``)."""

    kind = "created"
    spec: dict[str, Any]
    deal: dict[str, Any]
    absent: list[list[int]] = dataclasses.field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Act(Entry):
    """A player's action: ``action`` is a records.md action type, ``cards``
    its cards; ``client_seq`` the client's number for it (0: none)."""

    kind = "act"
    player: str
    action: str
    cards: tuple[str, ...]
    client_seq: int = 0

    def json(self) -> dict[str, Any]:
        return {"type": self.kind, "at": self.at, "player": self.player,
                "action": {"type": self.action, "cards": list(self.cards)},
                "client_seq": self.client_seq}

    @classmethod
    def of(cls, data: dict[str, Any]) -> Entry:
        action = data["action"]
        return cls(at=data["at"], player=data["player"], action=action["type"],
                   cards=tuple(action.get("cards", [])),
                   client_seq=int(data.get("client_seq", 0)))


@dataclass(frozen=True, slots=True)
class Timer(Entry):
    """What the timers did by ``at``."""

    kind = "timer"


@dataclass(frozen=True, slots=True)
class Disconnected(Entry):
    """``player``'s seat is held from ``since`` (unix ms)."""

    kind = "disconnected"
    player: str
    since: int


@dataclass(frozen=True, slots=True)
class Reconnected(Entry):
    """``player`` is back; the hold ends."""

    kind = "reconnected"
    player: str


@dataclass(frozen=True, slots=True)
class Leave(Entry):
    """``player`` escapes (逃跑)."""

    kind = "leave"
    player: str


@dataclass(frozen=True, slots=True)
class Finished(Entry):
    """``game_finished`` of deal ``game_id``: ``rows`` (the settlement table,
    one dict a seat) and ``settlement_error`` (empty where it settled)."""

    kind = "finished"
    game_id: str = ""
    rows: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    settlement_error: str = ""


@dataclass(frozen=True, slots=True)
class Redeal(Entry):
    """The sitting's next deal: game id ``game_id``, the engine's ``deal``."""

    kind = "redeal"
    game_id: str
    deal: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Takeover(Entry):
    """Instance ``instance`` at ``address`` goes on with a game that stood
    still from ``stopped_at`` (unix ms)."""

    kind = "takeover"
    stopped_at: int
    instance: str
    address: str


@dataclass(frozen=True, slots=True)
class Resume(Entry):
    """The owner goes on after a pause of its log from ``stopped_at`` (unix ms)."""

    kind = "resume"
    stopped_at: int


@dataclass(frozen=True, slots=True)
class Handover(Entry):
    """Instance ``instance`` gave the game up (SIGTERM)."""

    kind = "handover"
    instance: str = ""


@dataclass(frozen=True, slots=True)
class Void(Entry):
    """An operator (``by``) ended the current deal without a result, for ``why``."""

    kind = "void"
    by: str
    why: str


@dataclass(frozen=True, slots=True)
class Level(Entry):
    """Every seat gets its whole view again."""

    kind = "level"


KINDS: dict[str, type[Entry]] = {cls.kind: cls for cls in (
    Created, Act, Timer, Disconnected, Reconnected, Leave, Finished, Redeal, Takeover,
    Resume, Handover, Void, Level)}


def entry_of(data: dict[str, Any]) -> Entry:
    """The entry a logged JSON object holds. ``ValueError`` on an unknown
    ``type``; ``KeyError`` on a missing field."""
    kind = KINDS.get(data["type"])
    if kind is None:
        raise ValueError(f"unknown log entry type {data['type']!r}")
    return kind.of(data)
