# size: one state machine: the entries that move a sitting, the deal in play they
# move, and what a seat may see of it; cut apart, each half reached into the other.
"""A sitting: a room's game and its redeals (one lobby game id), as a state
machine over its log entries. No I/O, no clock of its own.

Everything that moves a sitting is an entry (:mod:`services.table.domain.entries`);
:meth:`Sitting.apply` applies one and returns an :class:`Applied`: the events
it caused, numbered already (:mod:`services.table.domain.numbering`: public
ones with the game's public ``seq`` 1, 2, 3 …, private ones with that
player's own ``seq``; events.md "Names"), the answer to an ``act`` and what
the log stores beside the entry. Applying the same entries in the same order
gives the same state and the same events: that is how a takeover rebuilds a
game from its log (:func:`restore`). The caller
(:mod:`services.table.application.room`) publishes the events in order and
logs a ``timer`` entry once :meth:`Sitting.next_deadline` has passed.

The deal in play is the engine's (``paiju.rules.Game``); a redeal (nobody bid
or declared) deals again with a new game id, the seats' disconnect budgets
going on. Timers (rulings.md "Shared by all games"): the turn clock
(:mod:`services.table.domain.turns`): at a seat's deadline the table applies
``timeout`` (the engine applies the default action and counts; its 4th in a
row is an escape). Disconnect holds (:mod:`services.table.domain.holds`, a
budget of ``reconnect_seconds`` per seat per sitting): while a seat is away
the game waits at its turn and its turn clock stops; when its budget is
spent the seat escapes. The rules' own timed steps (:mod:`paiju.rules.timed`:
a paced deal, the declaring window) come due like the clocks; the sitting
asks when the next is due and applies what it gives.

After the game stood still (its owner died until another instance took it
over, or NATS was away: a pause) from ``stopped_at`` to ``now``
(:meth:`Sitting.apply` of ``takeover`` and ``resume``):

- every running turn clock goes on with the time it had left at
  ``stopped_at``, at least :data:`~services.table.domain.turns.RESUME_FLOOR_SECONDS`
  (10 s; a whole turn where ``turn_seconds`` is shorter); a turn stopped
  because its seat is away stays stopped with its time;
- the rules' timed steps go on the same way
  (:meth:`paiju.rules.timed.TimedSteps.went_on`);
- disconnect holds are not moved: the time away counts (a spent budget
  escapes at once);
- after a takeover the public ``game_moved`` (``game_id``, ``table_instance``:
  the new owner's gRPC address) goes out, then each seat's player gets its
  whole ``view`` privately, and the public ``turn`` of each running turn
  with its new deadline.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from paiju.rules import Action, Event, Game, RulesError, new_game
from paiju.rules.ai import public_action
from paiju.rules.bounded import HINT_PLAYS, SEAT_VIEW_PLAYS
from paiju.rules.cards import parse_cards
from paiju.rules.engine import SYSTEM_ACTIONS
from paiju.rules.timed import DealPlan, TimedSteps
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
from services.table.domain.holds import Holds
from services.table.domain.numbering import Numbering
from services.table.domain.options import TableOptions
from services.table.domain.outgoing import Answer, GameError, Outgoing, Seat, ms
from services.table.domain.shown import Shown
from services.table.domain.spec import GameSpec, Terms
from services.table.domain.turns import RESUME_FLOOR_SECONDS, TurnClock

__all__ = ["Answer", "Applied", "GameError", "Outgoing", "Seat", "Sitting", "restore"]

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
    """The state of one sitting, built from its entries (the first :class:`Created`;
    see the module docstring).

    Raises ``RulesError`` (``bad_deal``, ``bad_options``) where the engine
    refuses the options or the deal, ``GameError(wrong_seats)`` for a wrong
    number of seats."""

    def __init__(self, created: Created) -> None:
        self.spec = spec_of(created.spec, created.deal)
        spec = self.spec
        #: The gRPC address the lobby placed the game at, or the instance that
        #: took it over (``game_started`` carries it; "" when not given).
        self.table_instance = spec.table_instance
        self.room = spec.room
        self.server = spec.server
        self.name = spec.game
        self.engine_options = dict(spec.engine_options)
        self.topts = spec.table_options
        self.seats = sorted(spec.seats, key=lambda s: s.seat)
        self.by_player = {s.player: s.seat for s in self.seats}
        self.redeals = 0
        self.no_call_streak = spec.table_options.no_call_streak
        #: The redeal fee (``no_call_fee``) is due before the next redeal.
        self.fee_due = False
        #: ``game_finished`` of the current deal went out (a ``finished`` entry).
        self.finished_logged = False
        self.handed_over_at: float | None = None
        at = created.at / 1000.0
        self.last_at = at
        #: The seats' disconnect budgets: the sitting's, shared by its redeals.
        self.holds = Holds(len(spec.seats), spec.table_options.reconnect_seconds, at)
        for seat, since in created.absent:
            self.holds.leave(int(seat), since / 1000.0)
        self._deal(spec.game_id, created.deal, at)

    def _deal(self, game_id: str, deal: dict[str, Any], now: float) -> None:
        """The deal in play is ``deal`` (game id ``game_id``) from ``now``."""
        self.game_id = game_id
        self.deal = dict(deal)
        self.engine: Game = new_game(self.name, self.engine_options, self.deal)
        if len(self.seats) != self.engine.seats:
            raise GameError("wrong_seats", f"{self.name} has {self.engine.seats} seats, "
                            f"not {len(self.seats)}", "INVALID_ARGUMENT")
        topts = self.topts
        self.started_at = now
        self.finished_at: float | None = None
        #: The records.md actions applied so far, system ones too.
        self.actions: list[dict[str, Any]] = []
        self.numbers = Numbering(s.player for s in self.seats)
        self.turns = TurnClock(topts.turn_seconds)
        #: The rules' timed steps: the paced deal, the declaring window.
        self.steps = TimedSteps(self.engine, self.deal, now, topts.deal_interval_ms,
                                topts.declare_grace_seconds,
                                self.engine.seats if topts.deal_by_rounds else 1)
        self.sent_hands: dict[int, list[str]] = {}
        #: The roles and display last sent (services.table.domain.shown).
        self.shown = Shown(self.engine, counter=topts.card_counter)
        #: Turns timed out in this deal (the table counts them in its metrics).
        self.timeouts = 0
        self.reason: str | None = None
        #: Set when an operator voided the game: ``{"by", "why", "at"}`` (ms).
        self.voided: dict[str, Any] | None = None

    # -- entries -------------------------------------------------------------------

    def first(self) -> Applied:
        """The :class:`Created` entry's events (the start); call once, right
        after construction, as :meth:`apply` does for the other entries."""
        return self._applied(self.start(self.last_at), 0)

    def apply(self, entry: Entry) -> Applied:
        """Apply one entry (not :class:`Created`). ``ValueError`` on a kind
        this sitting cannot apply."""
        at = entry.at / 1000.0
        self.last_at = max(self.last_at, at)
        before = len(self.actions)
        answer = OK
        match entry:
            case Act():
                answer, out = self.act(entry.player, entry.action, list(entry.cards),
                                       entry.client_seq, at)
            case Timer():
                out = self.on_time(at)
            case Disconnected():
                out = self.disconnected(entry.player, at, entry.since / 1000.0)
            case Reconnected():
                out = self.reconnected(entry.player, at)
            case Leave():
                out = self.leave(entry.player, at)
            case Finished():
                out = [self._finished(entry)]
            case Redeal():
                out = self._redeal(entry, at)
                before = 0
            case Takeover():
                self.table_instance = entry.address
                self.handed_over_at = None
                out = self._level(entry.stopped_at / 1000.0, at, moved_to=entry.address)
            case Resume():
                self.handed_over_at = None
                out = self._level(entry.stopped_at / 1000.0, at)
            case Void():
                out = self.void(at, entry.by, entry.why)
            case Handover():
                self.handed_over_at = at
                out = []
            case Level():
                out = self.views(at)
            case _:
                raise ValueError(f"a sitting cannot apply a {entry.kind!r} entry")
        return self._applied(out, before, answer)

    def _applied(self, out: list[Outgoing], before: int, answer: Answer = OK) -> Applied:
        return Applied(out, answer, self.public_seq, dict(self.numbers.player_seq),
                       self.actions[before:])

    def _finished(self, entry: Finished) -> Outgoing:
        event = self.finished_event(list(entry.rows))
        if entry.settlement_error:
            event.data["settlement_error"] = entry.settlement_error
        self.finished_logged = True
        after = self.engine.policy.redeal_fee_after
        if after:
            if self.reason == "redeal":
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
        self._deal(entry.game_id, entry.deal, at)
        return self.start(at)

    def _level(self, stopped_at: float, now: float, moved_to: str | None = None
               ) -> list[Outgoing]:
        """Move the clocks after the game stood still (the module docstring)
        and return the events that tell everyone (``game_moved`` first when
        ``moved_to`` is the new owner's address). A finished game only gets
        ``game_moved``."""
        out: list[Outgoing] = []
        if moved_to is not None:
            out.append(self.numbers.public("game_moved", {
                "game_id": self.game_id, "table_instance": moved_to}))
        if self.finished:
            return out
        turns = self.turns
        for seat, deadline in list(turns.deadlines.items()):
            if seat not in turns.paused:
                turns.deadlines[seat] = now + _going_on(deadline - stopped_at,
                                                        turns.turn_seconds)
        self.steps.went_on(stopped_at, now, RESUME_FLOOR_SECONDS)
        out += self.views(now)
        for seat in sorted(turns.deadlines):
            deadline = turns.deadlines[seat]
            if seat not in turns.paused:
                out.append(self.numbers.public("turn", {
                    "seat": seat, "phase": self.engine.phase, "deadline": ms(deadline),
                    "can_pass": self.engine.can_pass(seat)}))
        return out

    def views(self, now: float) -> list[Outgoing]:
        """Each seat's whole ``view`` at ``now``, privately (its ``player_seq``
        is the event's own ``seq``); none for a finished game. Also what a
        ``level`` entry gives: after the table's NATS connection came back,
        every seated client gets its view whatever it missed
        (:mod:`services.table.application.outage`)."""
        if self.finished:
            return []
        out: list[Outgoing] = []
        for s in self.seats:
            view = self.view(s.player, now)
            view["player_seq"] += 1
            out.append(self.numbers.private(s.player, "view", view))
        return out

    # -- reading -------------------------------------------------------------------

    @property
    def finished(self) -> bool:
        """True once the engine says the game ended (normal, escape or redeal),
        or an operator voided it."""
        return self.engine.finished or self.voided is not None

    @property
    def plan(self) -> DealPlan:
        """The order the deal's cards are given in."""
        return self.steps.plan

    @property
    def dealt(self) -> int:
        """Cards of a paced deal dealt so far."""
        return self.steps.dealt

    @property
    def public_seq(self) -> int:
        """The game's public seq so far."""
        return self.numbers.public_seq

    @property
    def dealing(self) -> bool:
        """True while a paced deal runs."""
        return self.steps.dealing and not self.finished

    @property
    def phase(self) -> str:
        """``dealing`` while a paced deal runs, else the engine's phase."""
        return "dealing" if self.dealing else self.engine.phase

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
        if self.dealing:
            return self.steps.hand(seat)
        hand = self.engine.view(seat).get("hand")
        return list(hand) if isinstance(hand, list) else []

    def view(self, player: str, now: float) -> dict[str, Any]:
        """The whole state ``player`` may see (:func:`player_view`)."""
        return player_view(self, player, now)

    def scores(self) -> dict[str, Any]:
        """看分: each seat's captured points and the cards that made them, as far as
        the game counts them (the engine's ``scores_view``)."""
        return self.engine.scores_view()

    def last_trick(self) -> dict[str, Any]:
        """上一轮: the last finished trick and its winner (the engine's ``last_trick_view``)."""
        return self.engine.last_trick_view()

    def hints(self, player: str) -> list[Action]:
        """``player``'s options now: every non-play action and at most
        :data:`~paiju.rules.bounded.HINT_PLAYS` plays (the engine's bounded ``hints``); declares are
        limited to the cards the seat holds so far during a paced deal."""
        return self._legal_now(self.seat_of(player))

    def _legal_now(self, seat: int, plays: int = HINT_PLAYS) -> list[Action]:
        if self.finished:
            return []
        if seat not in self.engine.to_act() and not self.steps.out_of_turn:
            return []
        return self.steps.allowed(seat, self.engine.hints(seat, plays))

    def seat_view(self, player: str, now: float) -> dict[str, Any]:
        """``player``'s decision inputs (an AI player's
        :class:`~paiju.rules.ai.SeatView`): ``{"view", "legal", "history",
        "options"}`` (``options``: the game's options, as ``game_started`` has them).
        ``view`` as :meth:`view`; ``legal`` its legal actions now as record
        actions (``{seat, type, cards?}``: every non-play option and at most
        :data:`~paiju.rules.bounded.SEAT_VIEW_PLAYS` plays, as the hints take
        them; empty when it has nothing to do); ``history`` the record's
        actions so far as its seat saw them (records.md: another seat's
        ``bury`` without its cards, :func:`~paiju.rules.ai.public_action`).
        Never the deal. ``GameError(not_seated)`` for a player not at the game."""
        seat = self.seat_of(player)
        legal = [Action(seat, a.type, a.cards).to_json()
                 for a in self._legal_now(seat, SEAT_VIEW_PLAYS)]
        history = [public_action(Action.from_json(a), seat).to_json() for a in self.actions]
        return {"view": self.view(player, now), "legal": legal, "history": history,
                "options": dict(self.engine_options)}

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
        return self.steps.stamped(Action(seat, type_, parsed))

    # -- moving --------------------------------------------------------------------

    def start(self, now: float) -> list[Outgoing]:
        """``game_started``, then the deal (at once, or its first cards)."""
        out = [self.numbers.public("game_started", {
            "game_id": self.game_id, "game": self.name, "options": self.engine_options,
            "seats": [{"seat": s.seat, "player": s.player, "name": s.name} for s in self.seats],
            "first": self.plan.first, "dealer": self.engine_options.get("dealer"),
            "turn_seconds": self.topts.turn_seconds, "table_instance": self.table_instance,
            "rules": self.engine.client_rules(), "display": self.shown.display,
        })]
        # A redeal goes on with the sitting: the seats away are still away.
        out += [self._disconnected_event(seat, now) for seat in self.holds.away()]
        if not self.plan.paced:
            out.append(self.numbers.public("dealing", {
                "cards_dealt_per_seat": [len(self._hand(s)) for s in range(self.engine.seats)],
                "done": True}))
        out += self._after(now, acted=None)
        if not self.dealing:
            self._counters(out)
        out += self.on_time(now)
        return out

    def act(self, player: str, type_: str, cards: Sequence[str], client_seq: int,
            now: float) -> tuple[Answer, list[Outgoing]]:
        """A player's action. A repeated ``(player, client_seq)`` (``client_seq`` > 0)
        returns the first answer and changes nothing. An illegal action gets its
        engine error code and changes nothing. Raises ``GameError(not_seated)``."""
        seat = self.seat_of(player)
        first = self.numbers.answered(player, client_seq)
        if first is not None:
            return first, []
        out: list[Outgoing] = []
        try:
            action = self._action(seat, type_, cards)
            out = self._apply(action, now)
        except RulesError as e:
            answer = Answer(False, e.code, e.message, self.public_seq)
        else:
            answer = Answer(True, seq=self.public_seq)
        self.numbers.remember(player, client_seq, answer)
        return answer, out

    def disconnected(self, player: str, now: float, at: float | None = None
                     ) -> list[Outgoing]:
        """``player`` went away at ``at`` (default ``now``; never later than
        ``now``): its seat is held, spending its budget from then, and its turn
        clock stops. ``seat_disconnected`` carries ``hold_until`` (unix ms, when
        the budget runs out) and ``budget_left_ms``. A repeat changes nothing.
        After the end (before a redeal) only the sitting's budget is told."""
        seat = self.seat_of(player)
        at = now if at is None else min(at, now)
        if not self.holds.leave(seat, at):
            return []
        if self.finished:
            return []
        self.turns.pause(seat, at)
        return [self._disconnected_event(seat, at)]

    def _disconnected_event(self, seat: int, now: float) -> Outgoing:
        end = self.holds.end(seat)
        assert end is not None
        return self.numbers.public("seat_disconnected", {
            "seat": seat, "hold_until": ms(end),
            "budget_left_ms": ms(self.holds.left(seat, now))})

    def reconnected(self, player: str, now: float) -> list[Outgoing]:
        """``player`` is back: the time away is spent from its seat's budget
        (``seat_reconnected`` with ``budget_left_ms``); its stopped turn goes
        on with the time it had left, at least 10 s (:meth:`TurnClock.resume`).
        It gets its whole ``view`` privately (its ``player_seq`` is the event's
        own ``seq``)."""
        seat = self.seat_of(player)
        came_back = self.holds.back(seat, now)
        if self.finished:
            return []
        out: list[Outgoing] = []
        if came_back:
            out.append(self.numbers.public("seat_reconnected", {
                "seat": seat, "hold_until": None,
                "budget_left_ms": ms(self.holds.left(seat, now))}))
            if self.turns.resume(seat, now):
                out += self._turn_events(seat)
        view = self.view(player, now)
        view["player_seq"] += 1
        out.append(self.numbers.private(player, "view", view))
        assert out[-1].seq == view["player_seq"]
        return out

    def leave(self, player: str, now: float) -> list[Outgoing]:
        """``player`` leaves: its ``escape`` (the game ends)."""
        seat = self.seat_of(player)
        if self.finished:
            return []
        return self._apply(Action(seat, "escape"), now)

    def _timer_times(self) -> list[float]:
        """The holds' ends and the turn deadlines that can fire."""
        return [*self.holds.times(),
                *self.turns.due_times(self.engine.to_act(), self.holds)]

    def next_deadline(self) -> float | None:
        """The earliest time :meth:`on_time` has something to do, or None."""
        if self.finished:
            return None
        times = self._timer_times()
        step = self.steps.next_time()
        if step is not None:
            times.append(step)
        return min(times) if times else None

    def on_time(self, now: float) -> list[Outgoing]:
        """Do everything due by ``now``, each at its own deadline: deal cards,
        the rules' timed steps, escape expired holds, time out turns."""
        out: list[Outgoing] = []
        while not self.finished:
            t = self.next_deadline()
            if t is None or t > now:
                break
            out += self._fire(t, now)
        return out

    # -- internals -----------------------------------------------------------------

    def _fire(self, t: float, now: float) -> list[Outgoing]:
        due = self.steps.next_time()
        if due is not None and due <= t:
            # Every card due by now in one step (one dealing event, one hand per
            # seat dealt to), but none past another timer due before them.
            until = max(t, min([now, *self._timer_times()]))
            step = self.steps.fire(t, until)
            if step.action is not None:
                return self._apply(step.action, t)
            assert step.dealt is not None
            out = [self.numbers.public("dealing", step.dealt), *self._after(until, acted=None)]
            if not self.dealing:
                self._counters(out)
            return out
        seat = self.holds.first_expired(t)
        if seat is not None:
            return self._apply(Action(seat, "escape"), t)
        seat = self.turns.first_due(t, self.engine.to_act(), self.holds)
        if seat is not None:
            self.timeouts += 1
            return self._apply(Action(seat, "timeout"), t)
        return []

    def _apply(self, action: Action, now: float) -> list[Outgoing]:
        """Apply ``action`` to the engine (raises ``RulesError``, nothing changed)."""
        events = self.engine.apply(action)
        self.steps.moved(action)
        self.actions.append(action.to_json())
        out = self._convert(events)
        out += self._after(now, acted=action.seat)
        self.shown.attach_display(self.engine, out)
        self._counters(out)
        return out

    def _counters(self, out: list[Outgoing]) -> None:
        """The 记牌器 events (:meth:`Shown.counter_events`)."""
        self.shown.counter_events(self.engine, self.numbers, self.seats, self._hand, out)

    def _convert(self, events: Sequence[Event]) -> list[Outgoing]:
        out: list[Outgoing] = []
        for e in events:
            data = dict(e.data)
            if e.to is None:
                out.append(self.numbers.public(e.type, data))
            else:
                if e.type == "hand":
                    data.setdefault("game_id", self.game_id)
                    cards = data.get("cards")
                    if isinstance(cards, list):
                        self.sent_hands[e.to] = list(cards)
                out.append(self.numbers.private(self.player_of(e.to), e.type, data))
        return out

    def _after(self, now: float, acted: int | None) -> list[Outgoing]:
        """Hands that changed, the turn clock, out-of-turn options, the end."""
        out: list[Outgoing] = []
        finished = self.finished
        if finished:
            self._ended(now)
        # While dealing, a hand changes only by the cards dealt to it.
        for s in self.steps.take_dirty_hands():
            # Compared in order: a new trump re-sorts a hand without changing it.
            hand = self._hand(s)
            if self.sent_hands.get(s) != hand:
                self.sent_hands[s] = hand
                out.append(self.numbers.private(self.player_of(s), "hand",
                                                {"game_id": self.game_id, "cards": hand}))
        out += self.shown.roles_event(self.engine, self.numbers)
        if finished:
            scores = self.scores()
            if scores:
                out.append(self.numbers.public("scores", scores))
            return out
        for s in self.turns.follow(self.engine.to_act(), acted, now, self.holds):
            out += self._turn_events(s)
        return out + self._window_turns()

    def _ended(self, now: float) -> None:
        self.turns.clear()
        self.steps.close()
        self.finished_at = now
        self.reason = self.engine.result().kind

    def void(self, now: float, by: str, why: str) -> list[Outgoing]:
        """An operator ends the game without a result (reason ``void``): no
        clock runs any more, nothing is settled; ``by`` and ``why`` go into
        its record. No event: ``game_finished`` follows from the ending.
        ``GameError(game_over)`` once the game finished."""
        if self.finished:
            raise GameError("game_over", f"game {self.game_id} has finished already",
                            "FAILED_PRECONDITION")
        self.voided = {"by": by, "why": why, "at": ms(now)}
        self.turns.clear()
        self.steps.close()
        self.finished_at = now
        self.reason = "void"
        return []

    def _turn_events(self, seat: int) -> list[Outgoing]:
        legal = self.engine.non_play_actions(seat)
        can_pass = any(a.type == "pass" for a in legal)
        deadline = self.turns.deadline(seat)
        assert deadline is not None
        phase = self.engine.phase
        return [
            self.numbers.public("turn", {"seat": seat, "phase": phase, "deadline": ms(deadline),
                                         "can_pass": can_pass}),
            self.numbers.private(self.player_of(seat), "your_turn", {
                "game_id": self.game_id, "seat": seat, "phase": phase,
                "deadline": ms(deadline), "can_pass": can_pass,
                "declare_options": [list(a.cards) for a in legal if a.type == "declare"],
                "hints": hints_json(self._legal_now(seat)),
            }),
        ]

    def _window_turns(self) -> list[Outgoing]:
        """``your_turn`` for each seat whose out-of-turn options changed (the
        declaring window's: :meth:`~paiju.rules.timed.TimedSteps.window_turns`)."""
        return [self.numbers.private(self.player_of(s), "your_turn", {
                    "game_id": self.game_id, "seat": s, **data,
                    "hints": hints_json(self._legal_now(s))})
                for s, data in self.steps.window_turns()]

    # -- the end -------------------------------------------------------------------

    def record(self) -> dict[str, Any]:
        """The game record (:func:`game_record`)."""
        return game_record(self)

    def finished_event(self, settlement: list[dict[str, Any]]) -> Outgoing:
        """``game_finished`` with the reason, the result (None: voided) and the
        settlement table (``lines``: the engine's result lines; none when voided)."""
        result = None if self.voided else self.engine.result().to_json()
        return self.numbers.public("game_finished", {
            "game_id": self.game_id, "reason": self.reason, "result": result,
            "settlement": settlement, "scores": self.scores(),
            "lines": [] if self.voided else self.engine.result_lines(),
        })



# -- what a seat may see (its view, its options) ------------------------------

def hints_json(actions: Sequence[Action]) -> list[dict[str, Any]]:
    """``actions`` as the ``hints`` command answers them and ``your_turn.hints``
    and ``view.hints`` carry them: ``[{type, cards?}]`` (``cards`` only when
    the action has some; no seat), in order."""
    return [{"type": a.type, "cards": list(a.cards)} if a.cards else {"type": a.type}
            for a in actions]


def seat_state(game: Sitting, s: Seat, now: float) -> dict[str, Any]:
    """Seat ``s`` in a view: seat, player, name, disconnected, hold_until (unix
    ms while away, else None), budget_left_ms (its disconnect budget left)."""
    end = game.holds.end(s.seat)
    return {"seat": s.seat, "player": s.player, "name": s.name,
            "disconnected": end is not None,
            "hold_until": ms(end) if end is not None else None,
            "budget_left_ms": ms(game.holds.left(s.seat, now))}


def player_view(game: Sitting, player: str, now: float) -> dict[str, Any]:
    """The whole state ``player`` may see (its own hand only): the engine's
    view plus game_id, seats (:func:`seat_state`), deadlines, ``time_left_ms``
    of its turn, ``can_pass``, ``declare_options`` and ``hints`` (as
    ``your_turn`` gives them; ``hints`` as the ``hints`` command answers), the
    public ``seq`` (also as ``public_seq``: a ``view`` event's own ``seq`` is
    the player's), ``player_seq`` and ``escape_points`` (the points ``player``
    would get if it quit now: an escape, seed 000 例外, rulings.md "Escapes";
    what the client's 退出 warning names). ``GameError(not_seated)`` for a
    player not at the game."""
    seat = game.seat_of(player)
    v = copy.deepcopy(game.engine.view(seat))
    if game.dealing:
        v["hand"] = game.steps.hand(seat)
        v["hand_counts"] = game.steps.counts()
    left = game.turns.time_left(seat, now)
    legal = game.hints(player)
    v.update({
        "game_id": game.game_id,
        "room": game.room,
        "game": game.name,
        "phase": game.phase,
        "seat": seat,
        "seats": [seat_state(game, s, now) for s in game.seats],
        "to_act": game.engine.to_act(),
        "deadlines": {str(s): ms(t) for s, t in game.turns.deadlines.items()},
        "time_left_ms": ms(left) if left is not None else None,
        "can_pass": any(a.type == "pass" for a in legal),
        "declare_options": [list(a.cards) for a in legal if a.type == "declare"],
        "hints": hints_json(legal),
        **game.steps.view_fields(),
        "seq": game.numbers.public_seq,
        "public_seq": game.numbers.public_seq,
        "player_seq": game.numbers.player_seq[player],
        "escape_points": game.engine.escape_points(seat)[seat],
        "roles": game.engine.public_roles(),
        "rules": game.engine.client_rules(),
        "display": game.engine.display(),
    })
    if game.shown.counter:
        v["counter"] = game.engine.card_counter(seat, list(v.get("hand") or []))
    return v


# -- the game record (records.md), as the table stores it ----------------------

def game_record(game: Sitting) -> dict[str, Any]:
    """The record (records.md): game, options, deal, actions as applied (system
    ones too), plus game_id, room, server, players, table_options, and once the
    game finished reason, result, finished_at; started_at / finished_at in unix ms.
    A game an operator voided has reason ``void``, no result, and ``void``:
    ``{"by", "why", "at"}`` (who, why, when in unix ms; docs/table.md).
    ``paiju replay`` plays ``options``, ``deal`` and ``actions`` again."""
    topts = game.topts
    rec: dict[str, Any] = {
        "game": game.name,
        "options": dict(game.engine_options),
        "deal": dict(game.deal),
        "actions": list(game.actions),
        "game_id": game.game_id,
        "room": game.room,
        "server": game.server,
        "players": [{"seat": s.seat, "player": s.player, "name": s.name}
                    for s in game.seats],
        "table_options": {
            "turn_seconds": topts.turn_seconds,
            "reconnect_seconds": topts.reconnect_seconds,
            "declare_grace_seconds": topts.declare_grace_seconds,
            "deal_interval_ms": topts.deal_interval_ms,
        },
        "started_at": ms(game.started_at),
    }
    if game.voided is not None:
        rec["reason"] = "void"
        rec["void"] = dict(game.voided)
        rec["finished_at"] = ms(game.finished_at or game.started_at)
    elif game.finished:
        rec["reason"] = game.reason
        rec["result"] = game.engine.result().to_json()
        rec["finished_at"] = ms(game.finished_at or game.started_at)
    return rec


def _going_on(left: float, whole: float) -> float:
    return max(left, min(RESUME_FLOOR_SECONDS, whole))


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
            raise ValueError(f"log of {sitting.spec.game_id}: entry {data['type']} at "
                             f"{data['at']} replays to seq {applied.seq}, "
                             f"logged {data['seq']}")
    return sitting

