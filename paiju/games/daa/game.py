"""大A (daa): five players, two decks, a climbing game around the big A.

Source: seed 003 (shared/seeds/003_0691f0c5d2a3cb84.txt) and
shared/spec/rulings.md, sections "daa" and "Settlement"; docs/rules/daa.md
states the rules as implemented with every ruling.

Modules by purpose: :mod:`~paiju.games.daa.combos` (card order, combinations,
what beats what), :mod:`~paiju.games.daa.moves` (what a hand can play),
:mod:`~paiju.games.daa.deal` (options, the deal, the held-back cards),
:mod:`~paiju.games.daa.teams` (declaring the big A, the sides, 推风),
:mod:`~paiju.games.daa.scoring` (points); this module is the state machine.

Phases: ``declaring`` (亮大A / 反大A while the cards are dealt; nobody in
particular is to act; the system's ``end_declare`` closes it), ``play``
(出牌 / 上牌 / 过牌, with ``reveal`` 亮明) and ``finished``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from itertools import chain, combinations_with_replacement
from typing import Any

from paiju.games.daa.combos import (
    CARD_ORDER,
    KEY_BIG_A,
    KIND_NAMES,
    KIND_SINGLE,
    KIND_TAKE_BACK,
    POWER,
    POWER_BJ,
    POWER_SJ,
    RANK_OF_POWER,
    TAKEABLE,
    Combo,
    beats,
    classify,
    power_class,
    sort_cards,
)
from paiju.games.daa.deal import SEATS, parse_deal, parse_options, random_deal
from paiju.games.daa.display import DaaShown
from paiju.games.daa.moves import HandInfo, generate, generate_split
from paiju.games.daa.results import DaaResults
from paiju.games.daa.scoring import end_points, escape_points
from paiju.games.daa.teams import DEFAULT_BIG_SUIT
from paiju.rules.cards import Card, hand_of, remove
from paiju.rules.engine import Action, Event, Game, Result
from paiju.rules.errors import RulesError
from paiju.rules.fastbuild import event as _event
from paiju.rules.fastbuild import new as _new
from paiju.rules.fastbuild import play_actions as _play_actions
from paiju.rules.fastbuild import set_event_data as _set_e_data
from paiju.rules.fastbuild import set_event_to as _set_e_to
from paiju.rules.fastbuild import set_event_type as _set_e_type

_chain_all = chain.from_iterable


_PASS: list[Action] = [Action(s, "pass") for s in range(SEATS)]


def _rank_plays(seat: int) -> dict[tuple[Card, ...], Action]:
    """The ``play`` action of every single and every pair of one rank (sorted in
    the game's order) for ``seat``: the plays listed most often, made once."""
    out: dict[tuple[Card, ...], Action] = {}
    for r in RANK_OF_POWER:
        for cards in combinations_with_replacement(sort_cards(r + s for s in "SHCD"), 2):
            out[(cards[0],)] = Action(seat, "play", (cards[0],))
            out[cards] = Action(seat, "play", cards)
    for joker in ("SJ", "BJ"):
        out[(joker,)] = Action(seat, "play", (joker,))
    return out


_RANK_PLAYS: list[dict[tuple[Card, ...], Action]] = [_rank_plays(s) for s in range(SEATS)]
_REVEAL: list[Action] = [Action(s, "reveal") for s in range(SEATS)]


class Daa(DaaResults, DaaShown, Game):
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

    def __init__(self, options: Mapping[str, Any], deal: Mapping[str, Any]) -> None:
        super().__init__(options, deal)
        self.options = parse_options(options)
        parsed = parse_deal(deal)
        self.first = parsed.first
        self.order: list[Card] | None = parsed.order
        self.dealt_hands = parsed.hands
        self.held: list[Card | None] = list(parsed.held)
        self.held_index = parsed.held_index
        self.hands: list[Counter[str]] = []
        for s in range(SEATS):
            h = hand_of(parsed.hands[s])
            remove(h, [parsed.held[s]])
            self.hands.append(h)
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

    # -- deal (deal) -------------------------------------------------------------

    @classmethod
    def random_deal(cls, options: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        """A shuffled deal (:func:`paiju.games.daa.deal.random_deal`): ``order``,
        ``hands`` in dealing order (each hand's last card is its held-back
        card), ``bottom`` [], ``first``."""
        return random_deal(rng)

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

    def _ended(self) -> bool:
        return self._phase == "finished"

    def _to_act(self) -> list[int]:
        return [self.turn] if self._phase == "play" else []

    def held_back(self, seat: int) -> Card | None:
        """The seat's face-down card until the big A is settled, then ``None``."""
        return self.held[seat]

    def held_back_positions(self) -> frozenset[int]:
        """The positions in ``deal.order`` of the held-back cards (each seat's last
        card, rulings.md "daa"); none for a deal without ``order``."""
        return frozenset(self.held_index) if self.order is not None else frozenset()

    # -- play (declaring and the sides: teams) -----------------------------------

    def _check_turn(self, seat: int) -> None:
        if self._phase != "play":
            raise RulesError("wrong_phase", "the game is not in its play phase")
        if seat != self.turn:
            raise RulesError("not_your_turn", f"seat {self.turn} is to act")

    def _reveal(self, seat: int) -> list[Event]:
        self._check_turn(seat)
        if not self._can_reveal(seat):
            raise RulesError("not_eligible", "only the hidden partner (or a declaring solo "
                             "before the first play) may reveal")
        self.named = True
        return [Event("revealed", {"seat": seat})]

    def _classify_play(self, seat: int, cards: tuple[Card, ...]) -> tuple[Combo, bool]:
        """The play's combination and whether it is a take-back (取回); raises."""
        n = len(cards)
        if not n:
            raise RulesError("invalid_combination", "play at least one card")
        hand = self.hands[seat]
        if n == 1:
            c = cards[0]
            if not hand.get(c, 0) > 0:
                raise RulesError("cards_not_in_hand", f"seat {seat} does not hold {list(cards)}")
            st = self.standing
            if c[1] == "J":
                single: Combo = (KIND_SINGLE, 1, POWER_BJ if c == "BJ" else POWER_SJ)
            else:
                single = (KIND_SINGLE, 1, KEY_BIG_A if c == self.big_card else POWER[c[0]])
            if st is not None and not beats(single, st):
                # (one 4 never takes back: a take-back answers 3 or more of a kind)
                raise RulesError("does_not_beat", f"{list(cards)} does not beat the standing play")
            return single, False
        count = cards.count
        if not all(hand.get(c, 0) >= count(c) for c in set(cards)):
            raise RulesError("cards_not_in_hand", f"seat {seat} does not hold {list(cards)}")
        st = self.standing
        if st is not None and st[0] in TAKEABLE and n == st[1] - 1 and all(
            c[0] == "4" for c in cards
        ):
            return (KIND_TAKE_BACK, n, power_class(st)), True
        combo = classify(cards, self.big_card)
        if combo is None:
            raise RulesError("invalid_combination", f"{list(cards)} is no combination")
        if st is not None and not beats(combo, st):
            raise RulesError("does_not_beat", f"{list(cards)} does not beat the standing play")
        return combo, False

    def _play(self, seat: int, cards: tuple[Card, ...]) -> list[Event]:
        self._check_turn(seat)
        return self._do_play(seat, cards)

    def _do_play(self, seat: int, cards: tuple[Card, ...]) -> list[Event]:
        """A play of the seat to act (phase and turn checked)."""
        combo, take = self._classify_play(seat, cards)
        hand = self.hands[seat]
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
            taken = self.standing_cards
            hand.update(taken)
            remove(table, taken)
            self.trick.append({"seat": seat, "type": "taken_back", "cards": list(taken)})
            events.append(_event("taken_back", {"seat": seat, "cards": list(taken)}))
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
        self.turn = nxt if hands[nxt] else self._next_with_cards(nxt)
        return events

    def _pass(self, seat: int) -> list[Event]:
        self._check_turn(seat)
        return self._do_pass(seat)

    def _do_pass(self, seat: int) -> list[Event]:
        """A pass of the seat to act (phase and turn checked)."""
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
            self.turn = nxt if hands[nxt] else self._next_with_cards(nxt)
            return events
        leader = winner if self.hands[winner] else self._push_wind(winner)
        events.append(_event("trick_won", {"seat": winner, "next_leader": leader}))
        self.last_trick = self.trick
        self.trick = []
        self.trick_no += 1
        self.standing, self.standing_seat, self.standing_cards = None, -1, ()
        self.passes = 0
        self.turn = leader
        return events

    def _apply(self, action: Action) -> list[Event]:
        typ = action.type
        if typ == "end_declare":
            return self._end_declare()
        seat = action.seat
        assert seat is not None
        if typ == "declare":
            return self._declare(action)
        if typ == "play":
            return self._play(seat, action.cards)
        if typ == "pass":
            return self._pass(seat)
        if typ == "reveal":
            return self._reveal(seat)
        raise RulesError("unknown_action", f"daa has no action {typ!r}")

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
        if k:  # singles and pairs first: their shared actions
            n = len(plays)
            out = list(map(_RANK_PLAYS[seat].__getitem__, plays if k == n else plays[:k]))
            if k < n:
                out += _play_actions(seat, plays[k:])
        else:
            out = _play_actions(seat, plays)
        if standing is not None:
            out.append(_PASS[seat])
        if not self.named and self._can_reveal(seat):
            out.append(_REVEAL[seat])
        return out

    def non_play_actions(self, seat: int) -> list[Action]:
        """The non-play actions of :meth:`legal_actions` without listing a
        play: declares while declaring; on ``seat``'s turn ``pass`` when
        following and ``reveal`` (亮明) wherever it is allowed."""
        if seat != self.turn or self._phase != "play":
            return self.declare_options(seat) if self._phase == "declaring" else []
        out: list[Action] = []
        if self.standing is not None:
            out.append(_PASS[seat])
        if not self.named and self._can_reveal(seat):
            out.append(_REVEAL[seat])
        return out

    def _hint_plays(self, seat: int, limit: int) -> list[Action]:
        """The first ``limit`` plays of :meth:`legal_actions`' order, built up
        to ``limit`` only (:func:`~paiju.games.daa.moves.generate_split`)."""
        if seat != self.turn or self._phase != "play":
            return []
        return _play_actions(seat, generate_split(self.hand_info(seat), self.standing, limit)[0])

    def default_action(self, seat: int) -> Action:
        """``pass`` when following; when leading, the lowest single (the fewest
        cards, lowest in the game's order; the big A counts as highest).
        Raises ``not_your_turn`` when ``seat`` is not to act."""
        if self._phase != "play" or seat != self.turn:
            raise RulesError("not_your_turn", f"seat {seat} is not to act")
        if self.standing is not None:
            return _PASS[seat]

        def low(card: Card) -> tuple[int, int]:
            combo = classify((card,), self.big_card)
            assert combo is not None and combo[0] == KIND_SINGLE
            return combo[2], CARD_ORDER[card]

        return Action(seat, "play", (min(self.hands[seat], key=low),))

    def view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see: its own face-up hand (the held-back card stays
        hidden until the big A is settled), counts, the trick, public roles."""
        hand = sort_cards(self.hands[seat].elements())
        return {
            "game": self.name,
            "phase": self.phase,
            "seat": seat,
            "hand": hand,
            "held_back": [1 if self.held[s] is not None else 0 for s in range(SEATS)],
            "hand_counts": [sum(self.hands[s].values()) + (self.held[s] is not None)
                            for s in range(SEATS)],
            "to_act": self.to_act(),
            "first": self.first,
            "declarer": self.declarer,
            "declared": self.declared_suit,
            "counter_declarer": self.counter,
            "big_a": self.big_suit if self.big_suit is not None else (
                self.counter_suit or self.declared_suit),
            "leader": self.leader,
            "named": self.named,
            "revealed": self.second if (self.named and self.second is not None) else None,
            "named_solo": self.solo if (self.named and self.solo is not None) else None,
            "big_a_played_by": sorted(self.big_a_shown),
            "trick": [dict(p) for p in self.trick],
            "standing": None if self.standing is None else {
                "seat": self.standing_seat, "cards": list(self.standing_cards),
                "combination": KIND_NAMES[self.standing[0]]},
            "last_trick": [dict(p) for p in self.last_trick],
            "trick_no": self.trick_no,
            "finish_order": list(self.finish_order),
        }

    # -- results -----------------------------------------------------------------

    def _detail(self) -> dict[str, Any]:
        return {
            "big_a": self.big_suit,
            "team": self.team(),
            "finish_order": list(self.finish_order),
            "named": self.named,
            "solo": self.solo is not None,
            "declarer": self.declarer,
            "counter_declarer": self.counter,
            "redeal": False,
        }

    def _result(self) -> Result:
        return Result(self.points(), self._detail())

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
        return self._detail()
