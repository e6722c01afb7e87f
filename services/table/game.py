"""A running game: the engine, its seats and players, sequence numbers,
de-duplication and its timers as data. No I/O, no clock of its own.

Every method that moves the game takes ``now`` (unix seconds) and returns the
events it caused as :class:`Outgoing` messages, numbered already: public ones
with the game's public ``seq`` (1, 2, 3 …), private ones with that player's
own ``seq`` (events.md "Names"). The caller (:mod:`services.table.runner`)
publishes them in order and calls :meth:`RunningGame.on_time` once
:meth:`RunningGame.next_deadline` has passed.

Timers (rulings.md "Shared by all games"): each seat to act has a deadline
``turn_seconds`` after its turn began; at the deadline the table applies
``timeout`` (the engine applies the default action and counts; its 4th in a
row is an escape). A disconnected seat is held ``reconnect_seconds``; while
held the game waits at its turn (no timeout); the hold's end is an ``escape``.
A paced deal gives one card every ``deal_interval_ms``; ``declare_grace_seconds``
after the last card the table applies ``end_declare``.
"""

from __future__ import annotations

import copy
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from paiju.rules import Action, Event, Game, RulesError, new_game
from paiju.rules.cards import parse_cards
from paiju.rules.engine import SYSTEM_ACTIONS
from services.table.dealing import DealPlan
from services.table.options import TableOptions

#: How many actions Hints returns at most.
HINTS_CAP = 50


@dataclass(frozen=True)
class Seat:
    """A seat of a game and who sits there."""

    seat: int
    player: str
    name: str = ""


@dataclass(frozen=True)
class Outgoing:
    """One event to publish: public (``player`` None, on paiju.table.<room>.events)
    or private to ``player`` (paiju.player.<player>.events). ``seq`` is already
    assigned; ``data`` is the events.md payload."""

    type: str
    data: dict[str, Any]
    seq: int
    player: str | None = None


@dataclass(frozen=True)
class Answer:
    """The answer to an action: ``ok``, else a stable ``error`` code
    (records.md) and a ``message``; ``seq`` is the public seq after it."""

    ok: bool
    error: str = ""
    message: str = ""
    seq: int = 0


class GameError(Exception):
    """A request the game refuses before the rules see it: ``code`` is a stable
    reason (``not_seated``), ``status`` the gRPC status name to answer with."""

    def __init__(self, code: str, message: str, status: str = "FAILED_PRECONDITION") -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status


def _ms(t: float) -> int:
    return round(t * 1000)


@dataclass
class _Timers:
    deadlines: dict[int, float] = field(default_factory=dict)
    holds: dict[int, float] = field(default_factory=dict)


class RunningGame:
    """One game of one room, from the deal to its end (see the module docstring).

    ``table_instance`` is the gRPC address the lobby placed the game at
    (``game_started`` carries it; "" when not given). Raises ``RulesError``
    (``bad_deal``, ``bad_options``) from the constructor where the engine
    refuses the options or the deal.
    """

    def __init__(self, *, game_id: str, room: str, server: str, game: str,
                 engine_options: Mapping[str, Any], table_options: TableOptions,
                 seats: Sequence[Seat], deal: Mapping[str, Any], now: float,
                 table_instance: str = "") -> None:
        self.game_id = game_id
        self.table_instance = table_instance
        self.room = room
        self.server = server
        self.name = game
        self.engine_options = dict(engine_options)
        self.topts = table_options
        self.deal = dict(deal)
        self.engine: Game = new_game(game, self.engine_options, self.deal)
        if len(seats) != self.engine.seats:
            raise GameError("wrong_seats", f"{game} has {self.engine.seats} seats, "
                            f"not {len(seats)}", "INVALID_ARGUMENT")
        self.seats = sorted(seats, key=lambda s: s.seat)
        self.by_player = {s.player: s.seat for s in self.seats}
        self.plan = DealPlan.of(self.deal, self.engine.seats, self.engine.held_back_positions())
        self.started_at = now
        self.finished_at: float | None = None
        self.actions: list[dict[str, Any]] = []
        self.public_seq = 0
        self.player_seq = {s.player: 0 for s in self.seats}
        self.answers: dict[tuple[str, int], Answer] = {}
        self.timers = _Timers()
        self.dealt = 0
        self.deal_done_at: float | None = None if self.plan.paced else now
        self.declaring_open = self.plan.paced
        self.sent_hands: dict[int, list[str]] = {}
        self.sent_declare: dict[int, list[list[str]]] = {}
        seat_range = range(self.engine.seats)
        #: Cards each seat was dealt so far (paced deal).
        self._held: list[Counter[str]] = [Counter() for _ in seat_range]
        #: Seats whose hand may have changed since it was last compared with
        #: what was sent (during a paced deal only the seats dealt to).
        self._hand_dirty: set[int] = set(seat_range)
        #: The engine's declare options per seat (the whole hand), and the cards
        #: they use; None once the engine moved (recomputed at the next use).
        self._declare_full: list[list[tuple[str, ...]]] | None = None
        self._declare_cards: list[frozenset[str]] = []
        #: Seats whose declare options may have changed since last sent.
        self._declare_dirty: set[int] = set(seat_range)
        self.timeouts = 0
        self.reason: str | None = None

    # -- reading -------------------------------------------------------------------

    @property
    def finished(self) -> bool:
        """True once the engine says the game ended (normal, escape or redeal)."""
        return self.engine.finished

    @property
    def phase(self) -> str:
        """``dealing`` while a paced deal runs, else the engine's phase."""
        if self.plan.paced and self.dealt < self.plan.total and not self.finished:
            return "dealing"
        return self.engine.phase

    def seat_of(self, player: str) -> int:
        """The seat of ``player``; ``GameError(not_seated)`` if it plays no seat here."""
        seat = self.by_player.get(player)
        if seat is None:
            raise GameError("not_seated", f"{player!r} has no seat in game {self.game_id}")
        return seat

    def player_of(self, seat: int) -> str:
        """The player at ``seat``."""
        return self.seats[seat].player

    def _hand(self, seat: int) -> list[str]:
        if self.plan.paced and self.dealt < self.plan.total and not self.finished:
            return sorted(self.plan.cards(seat, self.dealt))
        hand = self.engine.view(seat).get("hand")
        return list(hand) if isinstance(hand, list) else []

    def view(self, player: str, now: float) -> dict[str, Any]:
        """The whole state ``player`` may see (its own hand only): the engine's
        view plus game_id, seats, disconnects, deadlines, time left and seq."""
        seat = self.seat_of(player)
        v = copy.deepcopy(self.engine.view(seat))
        if self.phase == "dealing":
            v["hand"] = self._hand(seat)
            v["hand_counts"] = self.plan.counts(self.dealt)
        deadline = self.timers.deadlines.get(seat)
        v.update({
            "game_id": self.game_id,
            "room": self.room,
            "game": self.name,
            "phase": self.phase,
            "seat": seat,
            "seats": [{"seat": s.seat, "player": s.player, "name": s.name,
                       "disconnected": s.seat in self.timers.holds,
                       "hold_until": _ms(self.timers.holds[s.seat])
                       if s.seat in self.timers.holds else None} for s in self.seats],
            "to_act": self.engine.to_act(),
            "deadlines": {str(s): _ms(t) for s, t in self.timers.deadlines.items()},
            "time_left_ms": max(0, _ms(deadline - now)) if deadline is not None else None,
            "dealing": {"dealt": self.dealt, "total": self.plan.total,
                        "done": self.dealt >= self.plan.total},
            "declaring_until": _ms(self._grace_end())
            if self.declaring_open and self.deal_done_at is not None else None,
            "seq": self.public_seq,
            "player_seq": self.player_seq[player],
        })
        return v

    def scores(self) -> dict[str, Any]:
        """看分: each seat's captured points and the cards that made them, as far as
        the game counts them (``captured``, ``scores``, ``defender_points``)."""
        v = self.engine.view(0)
        return {k: v[k] for k in ("captured", "scores", "defender_points") if k in v}

    def last_trick(self) -> dict[str, Any]:
        """上一轮: the last finished trick (``last_trick`` and its winner)."""
        v = self.engine.view(0)
        return {k: v[k] for k in ("last_trick", "last_trick_winner") if k in v}

    def hints(self, player: str) -> list[Action]:
        """``player``'s legal actions now (at most :data:`HINTS_CAP`); declares are
        limited to the cards the seat holds so far during a paced deal."""
        seat = self.seat_of(player)
        if self.finished:
            return []
        if seat not in self.engine.to_act() and not self.declaring_open:
            return []
        actions = self.engine.legal_actions(seat)
        if self.declaring_open:
            actions = [a for a in actions if a.type != "declare"
                       or self._holds_now(seat, a.cards)]
        return actions[:HINTS_CAP]

    def _holds_now(self, seat: int, cards: Sequence[str]) -> bool:
        held = self._held[seat] if self.phase == "dealing" else Counter(self._hand(seat))
        return all(held[c] >= n for c, n in Counter(cards).items())

    def check(self, player: str, type_: str, cards: Sequence[str]) -> Answer:
        """Would this action be legal now? Nothing changes."""
        seat = self.seat_of(player)
        try:
            action = self._action(seat, type_, cards)
            copy.deepcopy(self.engine).apply(action)
        except RulesError as e:
            return Answer(False, e.code, e.message, self.public_seq)
        return Answer(True, seq=self.public_seq)

    def _action(self, seat: int, type_: str, cards: Sequence[str]) -> Action:
        if type_ in SYSTEM_ACTIONS:
            raise RulesError("unknown_action", f"{type_} is sent by the table, not a player")
        if self.finished:
            raise RulesError("game_over", "the game has finished")
        parsed = tuple(parse_cards(list(cards)))
        dealt = self.dealt if (type_ == "declare" and self.phase == "dealing") else None
        return Action(seat, type_, parsed, dealt)

    # -- moving --------------------------------------------------------------------

    def start(self, now: float) -> list[Outgoing]:
        """``game_started``, then the deal (at once, or its first cards)."""
        out = [self._public("game_started", {
            "game_id": self.game_id, "game": self.name, "options": self.engine_options,
            "seats": [{"seat": s.seat, "player": s.player, "name": s.name} for s in self.seats],
            "first": self.plan.first, "dealer": self.engine_options.get("dealer"),
            "turn_seconds": self.topts.turn_seconds, "table_instance": self.table_instance,
        })]
        if not self.plan.paced:
            out.append(self._public("dealing", {
                "cards_dealt_per_seat": [len(self._hand(s)) for s in range(self.engine.seats)],
                "done": True}))
        out += self._after(now, acted=None)
        out += self.on_time(now)
        return out

    def act(self, player: str, type_: str, cards: Sequence[str], client_seq: int,
            now: float) -> tuple[Answer, list[Outgoing]]:
        """A player's action. A repeated ``(player, client_seq)`` (``client_seq`` > 0)
        returns the first answer and changes nothing. An illegal action gets its
        engine error code and changes nothing. Raises ``GameError(not_seated)``."""
        seat = self.seat_of(player)
        key = (player, client_seq)
        if client_seq > 0 and key in self.answers:
            return self.answers[key], []
        out: list[Outgoing] = []
        try:
            action = self._action(seat, type_, cards)
            out = self._apply(action, now)
        except RulesError as e:
            answer = Answer(False, e.code, e.message, self.public_seq)
        else:
            answer = Answer(True, seq=self.public_seq)
        if client_seq > 0:
            self.answers[key] = answer
        return answer, out

    def disconnected(self, player: str, now: float) -> list[Outgoing]:
        """Hold ``player``'s seat for ``reconnect_seconds`` (a repeat changes nothing)."""
        seat = self.seat_of(player)
        if self.finished or seat in self.timers.holds:
            return []
        until = now + self.topts.reconnect_seconds
        self.timers.holds[seat] = until
        return [self._public("seat_disconnected", {"seat": seat, "hold_until": _ms(until)})]

    def reconnected(self, player: str, now: float) -> list[Outgoing]:
        """End ``player``'s hold: its turn (if it is) starts afresh; it gets its
        whole ``view`` privately."""
        seat = self.seat_of(player)
        if self.finished:
            return []
        out: list[Outgoing] = []
        if self.timers.holds.pop(seat, None) is not None:
            out.append(self._public("seat_reconnected", {"seat": seat, "hold_until": None}))
            if seat in self.engine.to_act():
                self.timers.deadlines[seat] = now + self.topts.turn_seconds
                out += self._turn_events(seat)
        out.append(self._private(player, "view", self.view(player, now)))
        return out

    def leave(self, player: str, now: float) -> list[Outgoing]:
        """``player`` leaves: its ``escape`` (the game ends)."""
        seat = self.seat_of(player)
        if self.finished:
            return []
        return self._apply(Action(seat, "escape"), now)

    def next_deadline(self) -> float | None:
        """The earliest time :meth:`on_time` has something to do, or None."""
        if self.finished:
            return None
        times: list[float] = []
        if self.plan.paced and self.dealt < self.plan.total:
            times.append(self._card_time(self.dealt))
        elif self.declaring_open and self.deal_done_at is not None:
            times.append(self._grace_end())
        times += self.timers.holds.values()
        to_act = self.engine.to_act()
        times += [t for s, t in self.timers.deadlines.items()
                  if s in to_act and s not in self.timers.holds]
        return min(times) if times else None

    def on_time(self, now: float) -> list[Outgoing]:
        """Do everything due by ``now``, each at its own deadline: deal cards,
        close the declaring window, escape expired holds, time out turns."""
        out: list[Outgoing] = []
        while not self.finished:
            t = self.next_deadline()
            if t is None or t > now:
                break
            out += self._fire(t, now)
        return out

    # -- internals -----------------------------------------------------------------

    def _card_time(self, i: int) -> float:
        return self.started_at + i * self.topts.deal_interval_ms / 1000.0

    def _grace_end(self) -> float:
        assert self.deal_done_at is not None
        return self.deal_done_at + self.topts.declare_grace_seconds

    def _fire(self, t: float, now: float) -> list[Outgoing]:
        if (self.plan.paced and self.dealt < self.plan.total
                and self._card_time(self.dealt) <= t):
            # Every card due by now in one step (one dealing event, one hand per
            # seat dealt to), but none past another timer due before them.
            to_act = self.engine.to_act()
            others = [*self.timers.holds.values(),
                      *(d for s, d in self.timers.deadlines.items()
                        if s in to_act and s not in self.timers.holds)]
            return self._deal_until(max(t, min([now, *others])))
        if self.declaring_open and self.deal_done_at is not None and self._grace_end() <= t:
            self.declaring_open = False
            return self._apply(Action(None, "end_declare"), t)
        for seat, until in sorted(self.timers.holds.items(), key=lambda x: x[1]):
            if until <= t:
                return self._apply(Action(seat, "escape"), t)
        to_act = self.engine.to_act()
        for seat, deadline in sorted(self.timers.deadlines.items(), key=lambda x: x[1]):
            if deadline <= t and seat in to_act and seat not in self.timers.holds:
                self.timeouts += 1
                return self._apply(Action(seat, "timeout"), t)
        return []

    def _deal_until(self, t: float) -> list[Outgoing]:
        interval = self.topts.deal_interval_ms / 1000.0
        if interval <= 0:
            k = self.plan.total
        else:
            k = min(self.plan.total, math.floor((t - self.started_at) / interval + 1e-9) + 1)
        k = max(k, self.dealt + 1)
        order = self.plan.order
        assert order is not None
        known = self._declare_full is not None
        for i in range(self.dealt, k):
            seat, card = self.plan.seat_of(i), order[i]
            self._held[seat][card] += 1
            self._hand_dirty.add(seat)
            # A card no declare option of the seat uses cannot change its options.
            if known and card in self._declare_cards[seat]:
                self._declare_dirty.add(seat)
        self.dealt = k
        done = k >= self.plan.total
        if done:
            self.deal_done_at = t
            # Hands are the engine's from now on (possibly in another order).
            self._hand_dirty.update(range(self.engine.seats))
            self._declare_dirty.update(range(self.engine.seats))
        out = [self._public("dealing", {"cards_dealt_per_seat": self.plan.counts(k),
                                        "dealt": k, "total": self.plan.total, "done": done})]
        out += self._after(t, acted=None)
        return out

    def _apply(self, action: Action, now: float) -> list[Outgoing]:
        """Apply ``action`` to the engine (raises ``RulesError``, nothing changed)."""
        events = self.engine.apply(action)
        self._declare_full = None
        self.actions.append(action.to_json())
        if action.type == "end_declare":
            self.declaring_open = False
        out = self._convert(events)
        out += self._after(now, acted=action.seat)
        return out

    def _convert(self, events: Sequence[Event]) -> list[Outgoing]:
        out: list[Outgoing] = []
        for e in events:
            data = dict(e.data)
            if e.to is None:
                out.append(self._public(e.type, data))
            else:
                if e.type == "hand":
                    data.setdefault("game_id", self.game_id)
                    cards = data.get("cards")
                    if isinstance(cards, list):
                        self.sent_hands[e.to] = list(cards)
                out.append(self._private(self.player_of(e.to), e.type, data))
        return out

    def _after(self, now: float, acted: int | None) -> list[Outgoing]:
        """Hands that changed, the turn clock, declare options, the end."""
        out: list[Outgoing] = []
        # While dealing, a hand changes only by the cards dealt to it.
        if self.phase == "dealing":
            seats: Sequence[int] = sorted(self._hand_dirty)
        else:
            seats = range(self.engine.seats)
        self._hand_dirty.clear()
        for s in seats:
            # Compared in order: a new trump re-sorts a hand without changing it.
            hand = self._hand(s)
            if self.sent_hands.get(s) != hand:
                self.sent_hands[s] = hand
                out.append(self._private(self.player_of(s), "hand",
                                         {"game_id": self.game_id, "cards": hand}))
        if self.finished:
            self.timers.deadlines.clear()
            self.declaring_open = False
            self.finished_at = now
            result = self.engine.result()
            if self.engine.escaped is not None:
                self.reason = "escape"
            elif result.detail.get("redeal"):
                self.reason = "redeal"
            else:
                self.reason = "normal"
            scores = self.scores()
            if scores:
                out.append(self._public("scores", scores))
            return out
        to_act = self.engine.to_act()
        for s in list(self.timers.deadlines):
            if s not in to_act:
                del self.timers.deadlines[s]
        for s in to_act:
            # A seat's turn (re)starts when it becomes to act or acted itself;
            # a seat that stays to act while another acts keeps its deadline.
            if s not in self.timers.deadlines or s == acted:
                self.timers.deadlines[s] = now + self.topts.turn_seconds
                out += self._turn_events(s)
        if self.declaring_open:
            out += self._declare_events()
        return out

    def _turn_events(self, seat: int) -> list[Outgoing]:
        legal = self.engine.legal_actions(seat)
        can_pass = any(a.type == "pass" for a in legal)
        deadline = _ms(self.timers.deadlines[seat])
        phase = self.engine.phase
        return [
            self._public("turn", {"seat": seat, "phase": phase, "deadline": deadline,
                                  "can_pass": can_pass}),
            self._private(self.player_of(seat), "your_turn", {
                "game_id": self.game_id, "seat": seat, "phase": phase, "deadline": deadline,
                "can_pass": can_pass,
                "declare_options": [list(a.cards) for a in legal if a.type == "declare"],
            }),
        ]

    def _declare_events(self) -> list[Outgoing]:
        """``your_turn`` (phase declaring) for each seat whose declare options
        changed. A seat's options are the engine's (asked once per engine move)
        that it holds the cards of so far, so they change only when the engine
        moved (every seat), the deal ended, or the seat was dealt a card one of
        them uses (see :meth:`_deal_until`)."""
        out: list[Outgoing] = []
        deadline = _ms(self._grace_end()) if self.deal_done_at is not None else None
        full = self._declare_full
        if full is None:
            full = self._declare_full = [
                [a.cards for a in self.engine.legal_actions(s) if a.type == "declare"]
                for s in range(self.engine.seats)]
            self._declare_cards = [frozenset(c for cards in f for c in cards) for f in full]
            self._declare_dirty.update(range(self.engine.seats))
        dirty = sorted(self._declare_dirty)
        self._declare_dirty.clear()
        for s in dirty:
            options = [list(cards) for cards in full[s] if self._holds_now(s, cards)]
            if self.sent_declare.get(s) != options:
                self.sent_declare[s] = options
                out.append(self._private(self.player_of(s), "your_turn", {
                    "game_id": self.game_id, "seat": s, "phase": "declaring",
                    "deadline": deadline, "can_pass": False, "declare_options": options}))
        return out

    def _public(self, type_: str, data: dict[str, Any]) -> Outgoing:
        self.public_seq += 1
        return Outgoing(type_, data, self.public_seq)

    def _private(self, player: str, type_: str, data: dict[str, Any]) -> Outgoing:
        self.player_seq[player] += 1
        return Outgoing(type_, data, self.player_seq[player], player)

    # -- the end -------------------------------------------------------------------

    def record(self) -> dict[str, Any]:
        """The game record (records.md): game, options, deal, actions as applied
        (system ones too), plus game_id, room, server, players, table_options,
        reason, result, started_at / finished_at (unix ms)."""
        rec: dict[str, Any] = {
            "game": self.name,
            "options": dict(self.engine_options),
            "deal": dict(self.deal),
            "actions": list(self.actions),
            "game_id": self.game_id,
            "room": self.room,
            "server": self.server,
            "players": [{"seat": s.seat, "player": s.player, "name": s.name}
                        for s in self.seats],
            "table_options": {
                "turn_seconds": self.topts.turn_seconds,
                "reconnect_seconds": self.topts.reconnect_seconds,
                "declare_grace_seconds": self.topts.declare_grace_seconds,
                "deal_interval_ms": self.topts.deal_interval_ms,
            },
            "started_at": _ms(self.started_at),
        }
        if self.finished:
            rec["reason"] = self.reason
            rec["result"] = self.engine.result().to_json()
            rec["finished_at"] = _ms(self.finished_at or self.started_at)
        return rec

    def finished_event(self, settlement: list[dict[str, Any]]) -> Outgoing:
        """``game_finished`` with the reason, the result and the settlement table."""
        result = self.engine.result().to_json()
        return self._public("game_finished", {
            "game_id": self.game_id, "reason": self.reason, "result": result,
            "settlement": settlement, "scores": self.scores(),
        })
