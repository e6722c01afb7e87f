"""The one engine interface that every game implements.

A game is a state machine of phases created from ``(options, deal)``
(shared/spec/records.md, "A game record"). The engine is pure: no I/O, no
clock, no randomness. Dealing happens outside (the table service, with
``secrets``); the engine only checks that a deal is the game's exact deck.

Contract of every engine (tested for each game):

- ``apply(action)`` applies a legal action and returns the :class:`Event` list
  it caused, or raises :class:`~paiju.rules.errors.RulesError` and leaves the
  state exactly as it was.
- ``legal_actions(seat)`` lists every legal action of ``seat`` now (for
  ``play``: every distinct legal card set; doudizhu, where suits never
  matter, lists one canonical card choice per legal rank pattern and accepts
  any cards of those ranks).
- ``view(seat)`` is what ``seat`` may see: its own hand, never another's.
- ``default_action(seat)`` is what a ``timeout`` applies (rulings.md, "Shared").
- What the table asks on a turn is bounded: ``non_play_actions(seat)`` (the
  non-play actions: pass, reveal, declare, bury, bids), ``can_pass(seat)``,
  ``hints(seat, limit)`` (every option, then at most ``limit`` plays from the
  lazy ``iter_plays(seat)``) and ``default_action(seat)`` never list every
  play; engines with many plays generate them lazily
  (:mod:`paiju.rules.bounded`).
- ``result()`` gives ``points`` and ``detail`` once ``finished``.

``timeout`` and ``escape`` are handled here for every game: the 4th
consecutive ``timeout`` of a seat is that seat's escape; any action of the
seat's own resets its count (rulings.md, "Shared by all games"). An engine's
fast path for its commonest actions is the ``_fast_apply`` hook, which the
shared ``apply`` calls first, so this bookkeeping is written once.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, ClassVar

from paiju.rules.bounded import HINT_PLAYS
from paiju.rules.cards import Card, parse_cards
from paiju.rules.counter import DEFAULT_ORDER, unseen
from paiju.rules.errors import RulesError

#: Consecutive timeouts of one seat that make an escape (seed 000 §超时不出).
TIMEOUTS_TO_ESCAPE = 4

#: Action types that the system (the table service), not a player, sends.
SYSTEM_ACTIONS = frozenset({"timeout", "escape", "end_declare"})

#: Options every room may carry whatever its game, defined once (rulings.md
#: "Shared by all games", "Settlement"): key → (integers only, lowest, highest
#: or None, lowest excluded). The table reads the timing ones and the redeal
#: fee (``no_call_fee`` coins, where the engine has a ``redeal_fee_after``),
#: the ledger the settlement ones (``base`` coins per unit, ``unit`` points per
#: unit, ``fee_rate`` the house's share); an engine accepts them and may read them.
ROOM_OPTIONS: dict[str, tuple[bool, float, float | None, bool]] = {
    "turn_seconds": (False, 0, 3600, True),
    "reconnect_seconds": (False, 0, 3600, False),
    "declare_grace_seconds": (False, 0, 600, False),
    "deal_interval_ms": (False, 0, None, False),
    "no_call_fee": (True, 0, None, False),
    "base": (True, 1, None, False),
    "unit": (True, 1, None, False),
    "fee_rate": (False, 0, 1, False),
}

#: Room-wide options that are true or false, read by the table only:
#: ``card_counter`` (the 记牌器 is shown; default true).
ROOM_FLAGS = frozenset({"card_counter"})


def check_room_options(game: str, options: object, own: frozenset[str] | set[str]
                       ) -> Mapping[str, Any]:
    """Check a room's ``options`` for game ``game`` whose own option keys are
    ``own``: an object whose keys are ``own``, :data:`ROOM_OPTIONS`, each
    room-wide one a number in its range (``fee_rate`` below 1), or
    :data:`ROOM_FLAGS`, each true or false. Returns
    ``options``; raises ``RulesError("bad_options")`` naming the key."""
    if not isinstance(options, Mapping):
        raise RulesError("bad_options", f"{game}: options must be an object")
    for key, value in options.items():
        if key in ROOM_FLAGS:
            if not isinstance(value, bool):
                raise RulesError("bad_options", f"{game}: {key} must be true or false")
            continue
        spec = ROOM_OPTIONS.get(key)
        if spec is None:
            if key not in own:
                raise RulesError("bad_options", f"{game}: unknown option {key!r}")
            continue
        integral, low, high, open_low = spec
        kinds = int if integral else (int, float)
        if (isinstance(value, bool) or not isinstance(value, kinds)
                or value < low or (open_low and value == low)
                or (high is not None and (value >= high if key == "fee_rate" else value > high))):
            raise RulesError("bad_options", f"{game}: bad option {key}={value!r}")
    return options


@dataclass(frozen=True, slots=True)
class Action:
    """One action of a game record.

    ``seat`` is ``None`` only for ``end_declare``; ``cards`` are canonical;
    ``dealt`` is the number of cards dealt when a declare was made (records.md
    ``deal.order``), ``None`` when not given.
    """

    seat: int | None
    type: str
    cards: tuple[Card, ...] = ()
    dealt: int | None = None

    @classmethod
    def from_json(cls, obj: object) -> Action:
        """Parse a record action ``{"seat": 0, "type": "play", "cards": [...]}``.

        Raises ``RulesError`` with ``malformed_action`` or ``malformed_cards``.
        """
        if not isinstance(obj, Mapping):
            raise RulesError("malformed_action", f"an action is an object, not {obj!r}")
        seat = obj.get("seat")
        typ = obj.get("type")
        if not isinstance(typ, str):
            raise RulesError("malformed_action", "an action needs a string 'type'")
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)):
            raise RulesError("malformed_action", f"'seat' must be an integer, not {seat!r}")
        cards = tuple(parse_cards(obj["cards"])) if obj.get("cards") is not None else ()
        dealt = obj.get("dealt")
        if dealt is not None and (isinstance(dealt, bool) or not isinstance(dealt, int)):
            raise RulesError("malformed_action", f"'dealt' must be an integer, not {dealt!r}")
        return cls(seat, typ, cards, dealt)

    def to_json(self) -> dict[str, Any]:
        """The record form of this action (``cards`` and ``dealt`` only when used)."""
        out: dict[str, Any] = {"seat": self.seat, "type": self.type}
        if self.cards:
            out["cards"] = list(self.cards)
        if self.dealt is not None:
            out["dealt"] = self.dealt
        return out


@dataclass(frozen=True, slots=True)
class Event:
    """Something an action caused.

    ``to`` is ``None`` for a public event (anyone at the table may see it), or
    the seat that alone may see it (a hand, the kitty). ``type`` and ``data``
    follow shared/spec/events.md.
    """

    type: str
    data: dict[str, Any] = field(default_factory=dict)
    to: int | None = None


#: The kinds of end a :class:`Result` has (events.md ``game_finished.reason``).
RESULT_KINDS = ("normal", "escape", "redeal")


@dataclass(frozen=True, slots=True)
class Result:
    """The end of a game: ``points`` per seat (the game's own points, the input
    to settlement), ``detail`` (records.md lists the keys per game) and
    ``kind``, one of :data:`RESULT_KINDS`: ``normal``, ``escape`` (set by
    :meth:`Game.result`) or ``redeal`` (nobody bid or declared: the same room
    is dealt again, nothing is settled)."""

    points: list[int]
    detail: dict[str, Any]
    kind: str = "normal"

    def to_json(self) -> dict[str, Any]:
        """``{"points": [...], "detail": {...}}``."""
        return {"points": list(self.points), "detail": dict(self.detail)}


def result_line(label: str, value: str = "", seats: Sequence[int] = ()) -> dict[str, Any]:
    """One settlement line in the shape of :meth:`Game.result_lines` and
    events.md ``game_finished.lines``: ``{"label": str, "value": str,
    "seats": [int]}``, value and seats only where given."""
    out: dict[str, Any] = {"label": label}
    if value:
        out["value"] = value
    if seats:
        out["seats"] = list(seats)
    return out


@dataclass(frozen=True)
class Policy:
    """How a game's results are paid and carried from one game to the next."""

    #: Points per coin unit: a room's ``unit`` where its server sets none
    #: (rulings.md "Settlement").
    points_unit: int = 1
    #: Redeals in a row after which every seated player pays the room's
    #: ``no_call_fee`` (the streak then starts from zero); 0: never.
    redeal_fee_after: int = 0
    #: The options :meth:`Game.carry_over` may set; a game that never
    #: finished (voided) passes on the values it was started with.
    carried_options: tuple[str, ...] = ()


@dataclass(frozen=True)
class Presentation:
    """Words and flags a client draws a game with, without knowing the game
    (:meth:`Game.client_rules`)."""

    #: The game's display name, as players read it (records.md "Games").
    title: str = ""
    #: Words for the game's phases where they are its own (the client has
    #: common words for ``dealing``, ``declaring``, ``bidding``, ``play`` …).
    phase_labels: Mapping[str, str] = field(default_factory=dict)
    #: Words for the game's own actions where the client shows them as buttons
    #: and says them (斗地主's ``call``: 叫地主); the client has common words
    #: for ``play``, ``pass``, ``declare`` … .
    action_labels: Mapping[str, str] = field(default_factory=dict)
    #: What a ``declare`` is called (the declare area, the log).
    declare_label: str = "叫主"
    #: True where a declare may be of jokers only (no trump suit, 无主).
    no_trump_declare: bool = True
    #: True where the seat that took a kitty sees it (what it buried) aside.
    own_kitty_shown: bool = False
    #: True where some seats play together (partners: 斗地主's farmers, 升级's
    #: 对家, 大A's sides); False where every seat plays for itself.
    partners: bool = False
    #: The 记牌器's ranks, high to low as the game's players read them
    #: (:data:`paiju.rules.counter.DEFAULT_ORDER`: jokers, then A … 2).
    counter_order: tuple[str, ...] = DEFAULT_ORDER


class Game(ABC):
    """Base of every rules engine.

    Subclasses set :attr:`name` and :attr:`seats`, parse their options and deal
    in ``__init__`` (raising ``bad_deal`` / ``bad_options``), and implement the
    ``_apply`` family. This base handles ``timeout`` and ``escape`` and the
    consecutive-timeout count.
    """

    name: ClassVar[str]
    seats: ClassVar[int]
    #: True where the engine implements :meth:`_fast_apply` (set per class:
    #: an engine without one pays no call for it).
    _fast_path: ClassVar[bool] = False
    #: The rule options a player may choose when opening a private room
    #: (好友房), each with its allowed values in the order to offer them
    #: (e.g. ``{"decks": (1, 2, 3, 4)}``); the rest are the server's.
    choices: ClassVar[Mapping[str, tuple[Any, ...]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._fast_path = cls._fast_apply is not Game._fast_apply

    def __init__(self, options: Mapping[str, Any], deal: Mapping[str, Any]) -> None:
        """Subclasses parse ``options`` and ``deal`` (raising ``bad_options`` /
        ``bad_deal``) and call this first."""
        self.timeouts: list[int] = [0] * self.seats
        self.escaped: int | None = None

    # -- what subclasses implement -------------------------------------------------

    @property
    @abstractmethod
    def phase(self) -> str:
        """The current phase name (e.g. ``bidding``, ``declaring``, ``play``, ``finished``)."""

    @classmethod
    @abstractmethod
    def random_deal(cls, options: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        """A random deal for ``options`` as a record's ``deal`` object
        (``hands``, ``bottom``, ``first`` and, for declaring games, ``order``).

        The table service passes ``secrets.SystemRandom()``; tests and benchmarks
        a seeded ``random.Random``. Pure given ``rng``.
        """

    @abstractmethod
    def _ended(self) -> bool:
        """True once the game has ended by its own rules (or a redeal)."""

    @abstractmethod
    def _to_act(self) -> list[int]:
        """The seats whose turn it is (the game is not finished)."""

    @abstractmethod
    def _apply(self, action: Action) -> list[Event]:
        """Apply a player's (or ``end_declare``) action or raise ``RulesError``
        with the state unchanged."""

    @abstractmethod
    def legal_actions(self, seat: int) -> list[Action]:
        """Every legal action of ``seat`` now (``timeout``/``escape`` excluded)."""

    def non_play_actions(self, seat: int) -> list[Action]:
        """Every legal non-play action of ``seat`` now (pass, reveal, declare,
        bury, bids), in :meth:`legal_actions` order. Engines whose plays can
        be many override this so that no play is listed."""
        return [a for a in self.legal_actions(seat) if a.type != "play"]

    def iter_plays(self, seat: int) -> Iterator[Action]:
        """The legal ``play`` actions of ``seat`` now, lazily, the smallest
        first as far as the engine orders them. Engines whose plays can be many
        override this with a generator that builds one play per step."""
        return (a for a in self.legal_actions(seat) if a.type == "play")

    def can_pass(self, seat: int) -> bool:
        """True where ``pass`` is among ``seat``'s legal actions now."""
        return any(a.type == "pass" for a in self.non_play_actions(seat))

    def hints(self, seat: int, limit: int = HINT_PLAYS) -> list[Action]:
        """What the client offers ``seat`` now: every non-play option
        (:meth:`non_play_actions`), then at most ``limit`` legal plays
        (:meth:`iter_plays` order, then the fewest cards first). Bounded work:
        at most ``limit`` plays are built where the engine generates lazily
        (docs/client-protocol.md)."""
        plays = self._hint_plays(seat, max(limit, 0))
        plays.sort(key=lambda a: len(a.cards))
        return [*self.non_play_actions(seat), *plays]

    def _hint_plays(self, seat: int, limit: int) -> list[Action]:
        """The first ``limit`` plays of :meth:`iter_plays` (an engine with a
        bounded generator of its own overrides this)."""
        return list(islice(self.iter_plays(seat), limit))

    @abstractmethod
    def default_action(self, seat: int) -> Action:
        """The action a ``timeout`` of ``seat`` applies (rulings.md "Shared")."""

    @abstractmethod
    def view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see, JSON-able; never another seat's hidden cards."""

    @abstractmethod
    def _result(self) -> Result:
        """The result of a game that ended without an escape."""

    @abstractmethod
    def escape_points(self, seat: int) -> list[int]:
        """Points per seat when ``seat`` escapes now (rulings.md "Settlement")."""

    def held_back_positions(self) -> frozenset[int]:
        """Positions (0-based) in ``deal.order`` of the cards the rules keep face
        down, hidden from their own seat too, until the rules give them (daa:
        each seat's last card, rulings.md "daa"). A paced deal counts these cards
        as dealt but shows them to nobody; the engine's ``hand`` events and
        views give them once the rules do. Default: none."""
        return frozenset()

    # -- what the client displays (the server sends display data) --

    def result_lines(self) -> list[dict[str, Any]]:
        """The settlement screen's lines of a finished game, in order, each
        ``{"label": str, "value": str (optional), "seats": [int] (optional)}``:
        the client shows the label, the seats' names and the value as given
        (e.g. ``{"label": "地主胜", "seats": [1]}``, ``{"label": "倍数",
        "value": "×8"}``). Words are the seeds' terms. Default: no lines.
        Raises ``wrong_phase`` before the game has finished."""
        self.result()
        return []

    def public_roles(self) -> list[str | None]:
        """Per seat, the role everyone at the table knows it has now (daa
        ``主方`` / ``次方``), else ``None``; never a role only its own seat
        knows. Default: none known."""
        return [None] * self.seats

    # -- the card counter (记牌器, :mod:`paiju.rules.counter`) --

    def deck_cards(self) -> list[Card]:
        """Every card this game is played with (its options choose the
        decks). Default: none, a game without a card counter."""
        return []

    def played_cards(self) -> list[Card]:
        """The cards out of every hand that everyone has seen face up now
        (played to a trick, a kitty shown out of play); never a card face
        down (a kitty not taken, a buried kitty, a held-back card)."""
        return []

    def shown_held(self) -> list[list[Card]]:
        """Per seat, the cards everyone saw go into its hand and that stay
        there until played (斗地主's kitty in the landlord's hand). Default:
        none."""
        return [[] for _ in range(self.seats)]

    def set_aside_seen(self, seat: int) -> list[Card]:
        """The cards out of play that ``seat`` alone has seen (升级's buried
        kitty, for the dealer who buried it). Default: none."""
        return []

    def card_counter(self, seat: int | None, hand: list[Card] | None = None
                     ) -> list[list[str | int]] | None:
        """The 记牌器 of ``seat`` (``None``: a spectator, public information
        only): ``[[rank, unseen], …]`` in the presentation's
        ``counter_order``, e.g. ``[["BJ", 1], ["SJ", 1], ["2", 4], …]``;
        ``None`` for a game without one (no :meth:`deck_cards`).
        ``hand``: the seat's hand as it sees it (the table passes a paced
        deal's cards so far); default its view's ``hand``."""
        if seat is not None and hand is None:
            hand = list(self.view(seat).get("hand") or [])
        found = self.card_counters({seat: hand or []})
        return None if found is None else found[seat]

    def card_counters(self, hands: Mapping[int | None, list[Card]]
                      ) -> dict[int | None, list[list[str | int]]] | None:
        """:meth:`card_counter` of each seat of ``hands`` (seat → its hand as
        it sees it; ``None`` → a spectator) at once; ``None`` for a game
        without one."""
        deck = self.deck_cards()
        if not deck:
            return None
        seen = {seat: [*cards, *self.set_aside_seen(seat)] if seat is not None else []
                for seat, cards in hands.items()}
        return unseen(deck, self.played_cards(), self.shown_held(), seen,
                      self.presentation.counter_order)

    # -- shared behaviour ---------------------------------------------------------

    @property
    def finished(self) -> bool:
        """True once the game has ended: normally, by an escape, or by a redeal."""
        return self.escaped is not None or self._ended()

    def to_act(self) -> list[int]:
        """The seats whose turn it is now (the clock runs for them); empty when
        nobody in particular is to act (a declaring window) or the game is over."""
        return [] if self.finished else self._to_act()

    def _fast_apply(self, action: Action) -> list[Event] | None:
        """The engine's fast path for its commonest actions (e.g. a play or pass
        of the seat to act): apply ``action`` and return its events, or return
        ``None`` (changing nothing) to take the shared way through
        :meth:`apply`. It may take only an action of a seat that is to act in a
        game not finished, and raises ``RulesError`` with the state unchanged
        as :meth:`_apply` does; :meth:`apply` then resets that seat's timeout
        count. Default: no fast path."""
        return None

    def apply(self, action: Action) -> list[Event]:
        """Apply ``action``; see the module docstring. Raises ``RulesError``.

        The engine's :meth:`_fast_apply` is tried first; the game-over, seat,
        ``escape`` and ``timeout`` handling and the timeout count are here
        only."""
        seat = action.seat
        if self._fast_path:
            events = self._fast_apply(action)
            if events is not None:
                assert seat is not None  # the fast path takes a seat to act only
                self.timeouts[seat] = 0
                return events
        if self.finished:
            raise RulesError("game_over", "the game has finished")
        if action.type == "end_declare":
            if seat is not None:  # records.md: a system action, seat null
                raise RulesError("malformed_action", "end_declare is the system's (seat null)")
        elif seat is None or not 0 <= seat < self.seats:
            raise RulesError("malformed_action", f"no seat {seat!r} in {self.name}")
        if action.type == "escape":
            assert seat is not None
            return self._escape(seat)
        if action.type == "timeout":
            assert seat is not None
            if seat not in self.to_act():
                raise RulesError("not_your_turn", f"seat {seat} is not to act")
            count = self.timeouts[seat] + 1
            if count >= TIMEOUTS_TO_ESCAPE:
                self.timeouts[seat] = count
                return [Event("timed_out", {"seat": seat, "count": count}), *self._escape(seat)]
            events = self._apply(self.default_action(seat))
            self.timeouts[seat] = count
            return [Event("timed_out", {"seat": seat, "count": count}), *events]
        events = self._apply(action)
        if seat is not None:
            self.timeouts[seat] = 0
        return events

    def _escape(self, seat: int) -> list[Event]:
        self.escaped = seat
        return [Event("escaped", {"seat": seat})]

    def result(self) -> Result:
        """``points`` and ``detail`` of a finished game; raises ``wrong_phase`` before."""
        if self.escaped is not None:
            base = self._result_detail_on_escape()
            return Result(self.escape_points(self.escaped), {**base, "escaped": self.escaped},
                          "escape")
        if not self.finished:
            raise RulesError("wrong_phase", "the game has not finished")
        return self._result()

    def _result_detail_on_escape(self) -> dict[str, Any]:
        """``detail`` of a game ended by an escape (subclasses add what they know)."""
        return {}

    # -- what the platform reads besides the state machine -------------
    # The table, the lobby and the web client know a game only through these:
    # none of them names a game.

    #: How the game's results are paid and carried (:class:`Policy`).
    policy: ClassVar[Policy] = Policy()
    #: How clients draw the game without knowing it (:class:`Presentation`).
    presentation: ClassVar[Presentation] = Presentation()
    #: The phase a game is in once its cards are all dealt (``declaring``: a
    #: window where trump is declared during and after a paced deal).
    phase_after_deal: ClassVar[str] = "play"
    #: The phase after the declaring window (unused without one).
    phase_after_declaring: ClassVar[str] = "play"

    @classmethod
    def client_rules(cls) -> dict[str, Any]:
        """What a client needs to draw this game without knowing it (the
        table sends it as ``rules`` in ``game_started`` and ``view``):
        ``{"title", "seats", "declaring": bool, "phase_after_deal",
        "phase_after_declaring", "phase_labels": {phase: words},
        "action_labels": {action type: words}, "declare_label",
        "no_trump_declare", "own_kitty_shown", "partners"}``."""
        p = cls.presentation
        return {
            "title": p.title or cls.name, "seats": cls.seats,
            "declaring": cls.phase_after_deal == "declaring",
            "phase_after_deal": cls.phase_after_deal,
            "phase_after_declaring": cls.phase_after_declaring,
            "phase_labels": dict(p.phase_labels), "action_labels": dict(p.action_labels),
            "declare_label": p.declare_label,
            "no_trump_declare": p.no_trump_declare, "own_kitty_shown": p.own_kitty_shown,
            "partners": p.partners,
        }

    @classmethod
    @abstractmethod
    def check_options(cls, options: Mapping[str, Any]) -> None:
        """Check a room's rule options without a deal (the lobby does, reading
        its rooms file): raises ``RulesError("bad_options")`` where the
        constructor would. The room-wide ones are :data:`ROOM_OPTIONS`
        (:func:`check_room_options`)."""

    def carry_over(self) -> dict[str, Any]:
        """What the room's next game needs from this finished one, as options
        of that game (e.g. ``{"dealer": 2}``, ``{"first": 1}``); ``{}`` for none."""
        return {}

    def scores_view(self) -> dict[str, Any]:
        """看分, public: any of ``scores`` (per seat ``{"points", "cards"}``),
        ``captured`` (points per seat), ``defender_points``; a game without
        point cards may give ``multiplier``, ``robs``, ``bombs`` and
        ``cards_left`` (per seat) instead; ``{}`` where it has nothing to show."""
        return {}

    def last_trick_view(self) -> dict[str, Any]:
        """上一轮, public: ``{"last_trick": [{seat, cards} | {seat, pass}] or
        {"plays": [...], "winner": seat}, "last_trick_winner": seat}``
        (the winner where the game knows it); ``{}`` before the first trick
        is over is fine too."""
        return {}

    def display(self) -> dict[str, Any]:
        """What every client shows of the game's public state beside the
        cards, so that it draws any game the same way (the table sends it in
        ``view`` and with the event after which it changed). Keys (each
        optional): ``trump`` ``{"label", "suit": "S"|"H"|"C"|"D"|null,
        "rank": "" or a rank, "text": words where there is no suit,
        "note"?: words on what else is always trump}``;
        ``badges`` per seat a list of ``{"text", "kind"}`` (kind: a CSS
        class: ``ll``, ``farmer``, ``plain``); ``points`` per seat (得分);
        ``kitty`` ``{"cards": [...]}`` or ``{"backs": n}`` (face down);
        ``rows`` ``[{"label", "text" | "seat", "id"}]`` for the side panel.
        Default: nothing."""
        return {}
