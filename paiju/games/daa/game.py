"""大A (daa): five players, two decks, a climbing game around the big A.

Source: seed 003 (shared/seeds/003_0691f0c5d2a3cb84.txt) and
shared/spec/rulings.md, sections "daa" and "Settlement"; docs/rules/daa.md
states the rules as implemented with every ruling.

This module is the state machine: :class:`Daa` holds the game's state and
answers the engine interface, asking its parts, which read or change that
state through the protocols they declare: :mod:`~paiju.games.daa.deal`
(options, the deal, the held-back cards), :mod:`~paiju.games.daa.declaring`
(亮大A / 反大A, settling the big A and the sides), :mod:`~paiju.games.daa.teams`
(the sides in play: 推风, 亮明, a side out), :mod:`~paiju.games.daa.combos`
(card order, combinations, what beats what), :mod:`~paiju.games.daa.moves`
(what a hand can play, checking a play), :mod:`~paiju.games.daa.actions`
(the actions of a turn), :mod:`~paiju.games.daa.scoring` (points),
:mod:`~paiju.games.daa.results` (public roles, the result's detail and
lines) and :mod:`~paiju.games.daa.display` (views and display).

Phases: ``declaring`` (亮大A / 反大A while the cards are dealt; nobody in
particular is to act; the system's ``end_declare`` closes it), ``play``
(出牌 / 上牌 / 过牌, with ``reveal`` 亮明) and ``finished``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from itertools import chain
from typing import Any

from paiju.games.daa import declaring, results, teams
from paiju.games.daa import display as shown
from paiju.games.daa.actions import PASS, REVEAL, play_actions
from paiju.games.daa.combos import KIND_NAMES, Combo, sort_cards
from paiju.games.daa.deal import SEATS, face_up_hands, parse_deal, parse_options, random_deal
from paiju.games.daa.declaring import DEFAULT_BIG_SUIT
from paiju.games.daa.moves import HandInfo, check_play, generate, generate_split, lowest_single
from paiju.games.daa.scoring import end_points, escape_points
from paiju.games.daa.teams import can_reveal, next_with_cards
from paiju.rules.cards import Card, deck, remove
from paiju.rules.engine import Action, Event, Game, Policy, Result
from paiju.rules.errors import RulesError
from paiju.rules.fastbuild import event as _event
from paiju.rules.fastbuild import new as _new
from paiju.rules.fastbuild import play_actions as _build_plays
from paiju.rules.fastbuild import set_event_data as _set_e_data
from paiju.rules.fastbuild import set_event_to as _set_e_to
from paiju.rules.fastbuild import set_event_type as _set_e_type

_chain_all = chain.from_iterable


class Daa(Game):
    """The 大A engine (see the module docstring and docs/rules/daa.md).

    ``deal``: ``hands`` (5 lists: 22 cards for the 3 seats from ``first``, 21
    for the others), ``bottom`` (empty), ``first`` (the first seat dealt to)
    and optionally ``order`` (the 108 cards in dealing order, card ``i`` to seat
    ``(first + i) % 5``). Each seat's held-back card (扣下的最后一张) is its last
    card of ``order``, or, without ``order``, the last card of its ``hands``
    list. Raises ``bad_deal`` / ``bad_options``.
    """

    name = "daa"
    seats = SEATS
    policy = Policy()
    presentation = shown.PRESENTATION
    phase_after_deal = "declaring"
    phase_after_declaring = "play"

    def __init__(self, options: Mapping[str, Any], deal: Mapping[str, Any]) -> None:
        super().__init__(options, deal)
        self.options = parse_options(options)
        parsed = parse_deal(deal)
        self.first = parsed.first
        self.order: list[Card] | None = parsed.order
        self.dealt_hands = parsed.hands
        #: per seat: the held-back card (None once given) and its position in ``order``
        self.held: list[Card | None] = list(parsed.held)
        self.held_index = parsed.held_index
        #: per seat, the face-up cards
        self.hands: list[Counter[str]] = face_up_hands(parsed)
        self._phase = "declaring"
        # declaring
        self.declarer: int | None = None  # 亮大A
        self.declared_suit: str | None = None
        self.counter: int | None = None  # 反大A
        self.counter_suit: str | None = None
        # settled at end_declare
        self.big_suit: str | None = None
        self.big_card: Card = "A" + DEFAULT_BIG_SUIT
        self.solo: int | None = None
        self.master: int | None = None  # 主方
        self.second: int | None = None  # 次方
        self.named = False  # 名A / 名双大A
        self.leader: int | None = None
        # play
        self.turn = -1
        self.played_any = False
        #: seats that played a big A (so everyone knows they hold one)
        self.big_a_shown: set[int] = set()
        self.standing: Combo | None = None
        self.standing_seat = -1
        self.standing_cards: tuple[Card, ...] = ()
        self.passes = 0
        self.trick: list[dict[str, Any]] = []
        self.last_trick: list[dict[str, Any]] = []
        self.trick_no = 0
        self.table: Counter[str] = Counter()
        self.finish_order: list[int] = []
        self._info: list[HandInfo | None] = [None] * SEATS

    # -- the deal and the options --------------------------------------------------

    @classmethod
    def random_deal(cls, options: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        """A shuffled deal (:func:`paiju.games.daa.deal.random_deal`): ``order``,
        ``hands`` in dealing order (each hand's last card is its held-back
        card), ``bottom`` [], ``first``."""
        return random_deal(rng)

    @classmethod
    def check_options(cls, options: Mapping[str, Any]) -> None:
        """As the constructor checks them: the room-wide ones only."""
        parse_options(options)

    def held_back(self, seat: int) -> Card | None:
        """The seat's face-down card until the big A is settled, then ``None``."""
        return self.held[seat]

    def held_back_positions(self) -> frozenset[int]:
        """The positions in ``deal.order`` of the held-back cards (each seat's last
        card, rulings.md "daa"); none for a deal without ``order``."""
        return frozenset(self.held_index) if self.order is not None else frozenset()

    # -- state -------------------------------------------------------------------

    @property
    def phase(self) -> str:
        """``declaring``, ``play`` or ``finished`` (after any end, an escape too)."""
        return "finished" if self.escaped is not None else self._phase

    @property
    def finished(self) -> bool:
        """True once the game has ended: normally or by an escape."""
        return self._phase == "finished" or self.escaped is not None

    def to_act(self) -> list[int]:
        """The seat to act (a list of one) in play; ``[]`` while declaring or once
        finished."""
        return [self.turn] if self._phase == "play" and self.escaped is None else []

    def _ended(self) -> bool:
        return self._phase == "finished"

    def _to_act(self) -> list[int]:
        return [self.turn] if self._phase == "play" else []

    def team(self) -> list[int]:
        """The big-A side: ``[solo]``, ``[主方, 次方]``, or [] while declaring."""
        return teams.team(self.solo, self.master, self.second)

    # -- the declaring window ------------------------------------------------------

    def _check_declaring(self) -> None:
        if self._phase != "declaring":
            raise RulesError("wrong_phase", "the declaring window is closed")

    def declare_options(self, seat: int, dealt: int | None = None) -> list[Action]:
        """The declarations ``seat`` may make now (with ``dealt``: against the
        cards it held then): one A of a suit it holds (亮), or, after another
        seat's 亮, two A of one suit (反). Empty outside the declaring window."""
        if self._phase != "declaring":
            return []
        return declaring.declare_options(self, seat, dealt)

    def _end_declare(self) -> list[Event]:
        """Close the window (:func:`paiju.games.daa.declaring.close`): play begins."""
        self._check_declaring()
        events = declaring.close(self)
        self._phase = "play"
        return events

    # -- play ----------------------------------------------------------------------

    def _apply(self, action: Action) -> list[Event]:
        typ = action.type
        if typ == "end_declare":
            return self._end_declare()
        seat = action.seat
        assert seat is not None
        if typ == "declare":
            self._check_declaring()
            return declaring.declare(self, seat, action.cards, action.dealt)
        if typ in ("play", "pass", "reveal"):
            self._check_turn(seat)
            if typ == "play":
                return self._do_play(seat, action.cards)
            if typ == "pass":
                return self._do_pass(seat)
            return self._reveal(seat)
        raise RulesError("unknown_action", f"daa has no action {typ!r}")

    def _fast_apply(self, action: Action) -> list[Event] | None:
        """A play or pass of the seat to act (see :meth:`Game._fast_apply`); the
        rest goes the shared way."""
        seat = action.seat
        if seat == self.turn and self._phase == "play" and self.escaped is None:
            typ = action.type
            if typ == "play":
                return self._do_play(seat, action.cards)
            if typ == "pass":
                return self._do_pass(seat)
        return None

    def _check_turn(self, seat: int) -> None:
        if self._phase != "play":
            raise RulesError("wrong_phase", "the game is not in its play phase")
        if seat != self.turn:
            raise RulesError("not_your_turn", f"seat {self.turn} is to act")

    def _reveal(self, seat: int) -> list[Event]:
        """亮明 by the seat to act (phase and turn checked)."""
        if not can_reveal(self, seat):
            raise RulesError("not_eligible", "only the hidden partner (or a declaring solo "
                             "before the first play) may reveal")
        self.named = True
        return [Event("revealed", {"seat": seat})]

    def _do_play(self, seat: int, cards: tuple[Card, ...]) -> list[Event]:
        """A play of the seat to act (phase and turn checked): ``played``, a
        take-back's ``taken_back``, the seat's ``hand`` (to it), ``player_out``."""
        hand = self.hands[seat]
        combo, take = check_play(seat, hand, cards, self.standing, self.big_card)
        table = self.table
        if len(cards) > 1:
            cards = tuple(sort_cards(cards))
        for c in cards:  # cards.remove, with dict's own pop (Counter's del is slow)
            n = hand[c] - 1
            if n:
                hand[c] = n
            else:
                hand.pop(c)
            table[c] = table.get(c, 0) + 1
        info = self._info[seat]
        self._info[seat] = info = None if take or info is None else info.without(cards)
        self.played_any = True
        if self.big_card in cards:
            self.big_a_shown.add(seat)
        name = KIND_NAMES[combo[0]]
        self.trick.append({"seat": seat, "type": "play", "cards": list(cards),
                           "combination": name})
        new, set_type, set_data, set_to = _new, _set_e_type, _set_e_data, _set_e_to
        played = new(Event)
        set_type(played, "played")
        set_data(played, {"seat": seat, "cards": list(cards), "combination": name,
                          "trick": self.trick_no})
        set_to(played, None)
        events = [played]
        if take:
            events.append(self._take_back(seat, hand))
        if info is None:
            sorted_hand = sort_cards(hand.elements())
        else:
            sorted_hand = [*_chain_all(info.by_rank), *info.jokers]
        own = new(Event)
        set_type(own, "hand")
        set_data(own, {"cards": sorted_hand})
        set_to(own, seat)
        events.append(own)
        self.standing, self.standing_seat, self.standing_cards = combo, seat, cards
        self.passes = 0
        hands = self.hands
        if not hand:
            self.finish_order.append(seat)
            events.append(_event("player_out", {"seat": seat, "place": len(self.finish_order)}))
            if self._side_out():
                self._phase = "finished"
                return events
        nxt = seat + 1 if seat < SEATS - 1 else 0
        self.turn = nxt if hands[nxt] else next_with_cards(hands, nxt)
        return events

    def _take_back(self, seat: int, hand: Counter[str]) -> Event:
        """取回: the standing cards go back from the table to ``hand``; the
        ``taken_back`` event."""
        taken = self.standing_cards
        hand.update(taken)
        remove(self.table, taken)
        self.trick.append({"seat": seat, "type": "taken_back", "cards": list(taken)})
        return _event("taken_back", {"seat": seat, "cards": list(taken)})

    def _do_pass(self, seat: int) -> list[Event]:
        """A pass of the seat to act (phase and turn checked): ``passed``, and
        ``trick_won`` once every other seat with cards passed."""
        if self.standing is None:
            raise RulesError("cannot_pass", "the leader must play")
        passed = _new(Event)
        _set_e_type(passed, "passed")
        _set_e_data(passed, {"seat": seat})
        _set_e_to(passed, None)
        events = [passed]
        self.trick.append({"seat": seat, "type": "pass"})
        passes = self.passes = self.passes + 1
        winner = self.standing_seat
        hands = self.hands
        if passes < 4 - (not hands[0]) - (not hands[1]) - (not hands[2]) - (not hands[3]) - (
            not hands[4]
        ) + (not hands[winner]):
            nxt = seat + 1 if seat < SEATS - 1 else 0
            self.turn = nxt if hands[nxt] else next_with_cards(hands, nxt)
            return events
        leader = winner if hands[winner] else self._push_wind(winner)
        events.append(_event("trick_won", {"seat": winner, "next_leader": leader}))
        self.last_trick = self.trick
        self.trick = []
        self.trick_no += 1
        self.standing, self.standing_seat, self.standing_cards = None, -1, ()
        self.passes = 0
        self.turn = leader
        return events

    def _push_wind(self, seat: int) -> int:
        """推风 (:func:`paiju.games.daa.teams.push_wind`): who leads after
        ``seat`` won a trick with no cards left."""
        return teams.push_wind(self, seat)

    def _side_out(self) -> bool:
        """True once one side has no cards left (:func:`paiju.games.daa.teams.side_out`)."""
        return teams.side_out(self)

    # -- queries -----------------------------------------------------------------

    def hand_info(self, seat: int) -> HandInfo:
        """The seat's hand analysed for play generation (cached until it changes)."""
        info = self._info[seat]
        if info is None:
            info = HandInfo(self.hands[seat].elements(), self.big_card)
            self._info[seat] = info
        return info

    def legal_plays(self, seat: int) -> list[tuple[Card, ...]]:
        """Every distinct card multiset ``seat`` may play now (sorted tuples)."""
        if self._phase != "play" or seat != self.turn:
            return []
        return generate(self.hand_info(seat), self.standing)

    def legal_actions(self, seat: int) -> list[Action]:
        """Declaring: :meth:`declare_options`. Play, on ``seat``'s turn: every
        legal play, ``pass`` when following, ``reveal`` where allowed."""
        if seat != self.turn or self._phase != "play":
            return self.declare_options(seat) if self._phase == "declaring" else []
        info = self._info[seat]
        if info is None:
            info = self.hand_info(seat)
        standing = self.standing
        plays, k = generate_split(info, standing)
        out = play_actions(seat, plays, k)
        if standing is not None:
            out.append(PASS[seat])
        if not self.named and can_reveal(self, seat):
            out.append(REVEAL[seat])
        return out

    def non_play_actions(self, seat: int) -> list[Action]:
        """The non-play actions of :meth:`legal_actions` without listing a
        play: declares while declaring; on ``seat``'s turn ``pass`` when
        following and ``reveal`` (亮明) wherever it is allowed."""
        if seat != self.turn or self._phase != "play":
            return self.declare_options(seat) if self._phase == "declaring" else []
        out: list[Action] = []
        if self.standing is not None:
            out.append(PASS[seat])
        if not self.named and can_reveal(self, seat):
            out.append(REVEAL[seat])
        return out

    def _hint_plays(self, seat: int, limit: int) -> list[Action]:
        """The first ``limit`` plays of :meth:`legal_actions`' order, built up
        to ``limit`` only (:func:`~paiju.games.daa.moves.generate_split`)."""
        if seat != self.turn or self._phase != "play":
            return []
        return _build_plays(seat, generate_split(self.hand_info(seat), self.standing, limit)[0])

    def default_action(self, seat: int) -> Action:
        """``pass`` when following; when leading, the lowest single
        (:func:`~paiju.games.daa.moves.lowest_single`). Raises
        ``not_your_turn`` when ``seat`` is not to act."""
        if self._phase != "play" or seat != self.turn:
            raise RulesError("not_your_turn", f"seat {seat} is not to act")
        if self.standing is not None:
            return PASS[seat]
        return Action(seat, "play", (lowest_single(self.hands[seat], self.big_card),))

    # -- what the table shows (display) --------------------------------------------

    def view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see (:func:`paiju.games.daa.display.view`)."""
        return shown.view(self, seat)

    def display(self) -> dict[str, Any]:
        """The big A, places out and 亮明 (:func:`paiju.games.daa.display.display`)."""
        return shown.display(self)

    def deck_cards(self) -> list[Card]:
        """Two decks of 54: 108 cards (rulings.md "daa")."""
        return deck(2)

    def played_cards(self) -> list[Card]:
        """The decks less every hand and every held-back card still face
        down: what was played (a card taken back, 取回, is in a hand again)."""
        out = Counter(deck(2))
        for h in self.hands:
            out.subtract(h)
        out.subtract(c for c in self.held if c is not None)
        return list(out.elements())

    def last_trick_view(self) -> dict[str, Any]:
        """上一轮: the last finished trick's plays and passes."""
        return shown.last_trick_view(self.last_trick)

    def public_roles(self) -> list[str | None]:
        """Per seat the role the table knows (:func:`paiju.games.daa.results.public_roles`)."""
        return results.public_roles(self)

    def result_lines(self) -> list[dict[str, Any]]:
        """The settlement lines (:func:`paiju.games.daa.results.result_lines`);
        raises ``wrong_phase`` before the game has finished."""
        return results.result_lines(self, self.result().points, self._phase == "declaring")

    # -- results -----------------------------------------------------------------

    def _result(self) -> Result:
        return Result(self.points(), results.detail(self))

    def points(self) -> list[int]:
        """Points per seat at the end (rulings.md "daa", End and points; see
        :func:`paiju.games.daa.scoring.end_points`)."""
        return end_points(solo=self.solo, named=self.named, master=self.master,
                          second=self.second, finish_order=self.finish_order,
                          out=[not h for h in self.hands])

    def escape_points(self, seat: int) -> list[int]:
        """The escapee pays 3 to each other seat; a solo escapee pays its loss
        (16 named / 8 hidden) to each (rulings.md "Settlement")."""
        return escape_points(seat, self.solo, self.named)

    def _result_detail_on_escape(self) -> dict[str, Any]:
        return results.detail(self)
