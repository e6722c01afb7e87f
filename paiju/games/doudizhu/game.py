"""斗地主 doudizhu: the rules engine (seed 002, rulings.md "doudizhu").

Three seats, one 54-card deck: 17 cards each and a 3-card kitty (底牌). Bidding
(叫地主 ``call`` / ``no_call``), then robbing (抢地主 ``rob`` / ``no_rob``); the
landlord (地主) takes the kitty, shown to all, and leads. Plays follow the
combinations of :mod:`paiju.games.doudizhu.combos`; the first seat out of cards
wins for its side. See docs/rules/doudizhu.md for every ruling.

Phases: ``bidding`` (calling), ``robbing``, ``play``, ``finished``.

``legal_actions`` in ``play`` lists one canonical card choice per distinct rank
multiset (suits never matter in doudizhu: the lowest suits S H C D of each rank
the seat holds); ``apply`` accepts any cards of the same ranks that the seat
holds.

Modules by purpose: :mod:`~paiju.games.doudizhu.combos` (ranks, combinations,
what a hand can play), :mod:`~paiju.games.doudizhu.deal` (options and the
deal), :mod:`~paiju.games.doudizhu.bidding` (calling and robbing),
:mod:`~paiju.games.doudizhu.scoring` (the end, spring, points),
:mod:`~paiju.games.doudizhu.results` (announcements, settlement lines),
:mod:`~paiju.games.doudizhu.display` (what clients draw); this module is the
state machine (hands, tricks, the engine interface), one class whose parts
are those modules' functions over its state.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from itertools import groupby
from typing import Any, ClassVar

from paiju.games.doudizhu import bidding, results, scoring
from paiju.games.doudizhu import combos as dc
from paiju.games.doudizhu import display as shown
from paiju.games.doudizhu.deal import SEATS, parse_deal, parse_options, random_deal
from paiju.games.doudizhu.display import entry
from paiju.rules.cards import deck
from paiju.rules.engine import Action, Event, Game, Policy, Presentation, Result
from paiju.rules.errors import RulesError
from paiju.rules.fastbuild import event as _event
from paiju.rules.fastbuild import new as _new
from paiju.rules.fastbuild import play_action as _new_play
from paiju.rules.fastbuild import set_event_data as _set_e_data
from paiju.rules.fastbuild import set_event_to as _set_e_to
from paiju.rules.fastbuild import set_event_type as _set_e_type

#: Immutable actions shared across games.
_PASS = [Action(s, "pass") for s in range(SEATS)]
_CALLS = [Action(s, "call") for s in range(SEATS)]
_NO_CALLS = [Action(s, "no_call") for s in range(SEATS)]
_ROBS = [Action(s, "rob") for s in range(SEATS)]
_NO_ROBS = [Action(s, "no_rob") for s in range(SEATS)]
_PLAY_CACHE_MAX = 50_000
_GROUP_SIZE = {dc.SINGLE: 1, dc.PAIR: 2, dc.TRIO: 3}
_READINGS_CACHE: dict[tuple[int, ...], list[tuple[str, int]]] = {}
_KICKERS = {
    dc.AIRPLANE_SINGLES: "singles", dc.FOUR_TWO_SINGLES: "singles",
    dc.AIRPLANE_PAIRS: "pairs", dc.FOUR_TWO_PAIRS: "pairs",
}
_EMPTY_PRE: list[tuple[str, ...]] = [()]


def _prefix_table() -> dict[tuple[str, ...], list[tuple[str, ...]]]:
    """Every sorted tuple of cards of one rank -> its prefix list ``[(), t[:1], ..., t]``
    (``pre[r]`` of a hand; shared, never mutated)."""
    table: dict[tuple[str, ...], list[tuple[str, ...]]] = {(): _EMPTY_PRE}
    by_rank: dict[int, list[str]] = {}
    for card in dc.sort_cards(deck(1)):
        by_rank.setdefault(dc.CARD_RANK[card], []).append(card)
    for cards in by_rank.values():
        for mask in range(1, 1 << len(cards)):
            t = tuple(c for i, c in enumerate(cards) if mask >> i & 1)
            table[t] = [t[:k] for k in range(len(t) + 1)]
    return table


#: Sorted cards of one rank -> prefix list (see :func:`_prefix_table`).
_PREFIXES = _prefix_table()
#: Per seat, the ``play`` action of every card set of one rank (the ``pre[r][k]``
#: tuples: singles, pairs, trios, bombs) and of the rocket, made once: the plays
#: listed most often are looked up instead of built (a few hundred small objects).
_RANK_PLAYS: list[dict[tuple[str, ...], Action]] = [
    {t: Action(seat, "play", t) for t in [*_PREFIXES, ("SJ", "BJ")] if t}
    for seat in range(SEATS)
]
_BID_TYPES = frozenset({"call", "no_call"})
_ROB_TYPES = frozenset({"rob", "no_rob"})
_PLAY_TYPES = frozenset({"play", "pass"})
_KNOWN_TYPES = _BID_TYPES | _ROB_TYPES | _PLAY_TYPES


def _play_actions(out: list[Action], seat: int, plays: list[tuple[str, ...]]) -> list[Action]:
    """Append ``Action(seat, "play", cards)`` for each of ``plays`` to ``out`` and
    return ``out``: the shared action of a rank play (:data:`_RANK_PLAYS`), else one
    built without the frozen dataclass's ``__init__`` (the same objects, faster)."""
    shared = _RANK_PLAYS[seat].get
    out += [shared(cards) or _new_play(seat, cards) for cards in plays]
    return out


def _main(reading: dc.Reading) -> int:
    return reading[1]


class Doudizhu(Game):
    """斗地主 for 3 seats (seed 002).

    ``options``: see :data:`DEFAULT_OPTIONS` (unknown keys or bad values raise
    ``bad_options``). ``deal``: ``{"hands": [[17 cards] x 3], "bottom": [3 cards],
    "first": seat}``, exactly the 54-card deck (else ``bad_deal``).
    """

    name: ClassVar[str] = "doudizhu"
    seats: ClassVar[int] = SEATS
    presentation: ClassVar[Presentation] = shown.PRESENTATION
    policy: ClassVar[Policy] = shown.POLICY
    phase_after_deal: ClassVar[str] = "bidding"

    def __init__(self, options: Mapping[str, Any], deal: Mapping[str, Any]) -> None:
        super().__init__(options, deal)
        opts = parse_options(options)
        self.options: dict[str, Any] = opts
        self.jokers_as_wings: bool = opts["jokers_as_wings"]
        self.pair_as_two_singles: bool = opts["pair_as_two_singles"]
        self.bomb_doubles: bool = opts["bomb_doubles"]
        self.spring_doubles: bool = opts["spring_doubles"]
        hands, bottom, first = parse_deal(deal)
        self.first: int = first
        self.bottom: list[str] = bottom
        # per seat: rank counts, prefix tuples (pre[r][-1]: the cards of rank r held)
        self._counts: list[list[int]] = [[0] * dc.NRANKS for _ in hands]
        self._pre: list[list[list[tuple[str, ...]]]] = [[_EMPTY_PRE] * dc.NRANKS for _ in hands]
        #: Every seat's number of cards.
        self.sizes: list[int] = [0, 0, 0]
        self._hands: list[list[str]] = [[], [], []]  # sorted, kept in step with _pre
        for seat, h in enumerate(hands):
            self.add_cards(seat, h)
        #: The phase as the rules moved it (:attr:`phase` also ends it on an escape).
        self.stage = "bidding"
        #: The seat to act.
        self.turn = first
        self.multiplier = 1
        self.landlord: int | None = None
        self.caller: int | None = None
        self.no_called: set[int] = set()
        self.bids: list[dict[str, Any]] = []
        self.rob_queue: list[int] = []
        self.robbed_by: list[int] = []
        # play state
        self._standing: tuple[str, int, int] | None = None  # (kind, n, main)
        self._standing_seat = -1
        self._passes = 0
        #: plays of the current / last trick: (seat, cards, combination); a pass is
        #: (seat, (), "")
        self.trick: list[tuple[int, tuple[str, ...], str]] = []
        self.last_trick: list[tuple[int, tuple[str, ...], str]] = []
        self.tricks_done = 0
        self.plays_by: list[int] = [0, 0, 0]
        self.bombs = 0
        self.winner: int | None = None
        self.spring = False
        self.redeal = False

    # -- construction (deal) ---------------------------------------------------

    @classmethod
    def random_deal(cls, options: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        """A shuffled deck (:func:`paiju.games.doudizhu.deal.random_deal`): 17 cards
        per seat, a kitty of 3, a random first bidder (seed §发牌)."""
        return random_deal(rng)

    # -- hand bookkeeping ------------------------------------------------------------

    def add_cards(self, seat: int, cards: list[str]) -> None:
        """Give ``cards`` to ``seat`` (the deal, the kitty)."""
        hand = sorted([*self._hands[seat], *cards], key=dc.CARD_KEY.__getitem__)
        counts = [0] * dc.NRANKS
        pre = [_EMPTY_PRE] * dc.NRANKS
        prefixes = _PREFIXES
        for r, grp in groupby(hand, key=dc.CARD_RANK.__getitem__):
            t = tuple(grp)
            counts[r] = len(t)
            pre[r] = prefixes[t]
        self._hands[seat] = hand
        self._counts[seat] = counts
        self._pre[seat] = pre
        self.sizes[seat] = len(hand)

    def hand(self, seat: int) -> list[str]:
        """``seat``'s cards in doudizhu order (3 low .. 2, SJ, BJ; suits S H C D)."""
        return list(self._hands[seat])

    # -- engine interface --------------------------------------------------------------

    @property
    def finished(self) -> bool:
        """True once the game has ended: normally, by an escape, or by a redeal."""
        return self.stage == "finished" or self.escaped is not None

    def to_act(self) -> list[int]:
        """The seat to act (a list of one), or ``[]`` once finished."""
        return [] if self.stage == "finished" or self.escaped is not None else [self.turn]

    def _fast_apply(self, action: Action) -> list[Event] | None:
        """A play or pass of the seat to act (see :meth:`Game._fast_apply`); the
        rest goes the shared way."""
        seat = action.seat
        if (
            self.stage == "play"
            and seat == self.turn
            and self.escaped is None
            and action.type in _PLAY_TYPES
        ):
            if action.type == "pass":
                if action.cards:
                    raise RulesError("malformed_action", "a pass carries no cards")
                return self._pass(seat)
            return self._play(seat, action.cards)
        return None

    @property
    def phase(self) -> str:
        """``bidding``, ``robbing``, ``play`` or ``finished``."""
        return "finished" if self.escaped is not None else self.stage

    def _ended(self) -> bool:
        return self.stage == "finished"

    def _to_act(self) -> list[int]:
        return [self.turn]

    def legal_actions(self, seat: int) -> list[Action]:
        """Every legal action of ``seat`` now: ``call``/``no_call`` in bidding,
        ``rob``/``no_rob`` in robbing, and in play ``pass`` (not for a leader) and
        one ``play`` per distinct rank multiset that is legal (canonical suits)."""
        if seat != self.turn or self.escaped is not None:
            return []
        if self.stage == "play":
            counts, pre = self._counts[seat], self._pre[seat]
            standing = self._standing
            if standing is None:
                plays = dc.lead_plays(counts, pre, self.jokers_as_wings, self.pair_as_two_singles)
                return _play_actions([], seat, plays)
            k = _GROUP_SIZE.get(standing[0])
            if k:  # single, pair, trio: the common case, in one pass; only rank plays
                plays = [pre[r][k] for r in range(standing[2] + 1, dc.NRANKS) if counts[r] >= k]
                if 4 in counts or (counts[dc.SJ_RANK] and counts[dc.BJ_RANK]):
                    dc.add_bombs(plays, counts, pre)
                return [_PASS[seat], *map(_RANK_PLAYS[seat].__getitem__, plays)]
            else:
                plays = dc.follow_plays(
                    counts, pre, standing, self.jokers_as_wings, self.pair_as_two_singles
                )
            return _play_actions([_PASS[seat]], seat, plays)
        phase = self.stage
        if phase == "bidding":
            return [_CALLS[seat], _NO_CALLS[seat]]
        if phase == "robbing":
            return [_ROBS[seat], _NO_ROBS[seat]]
        return []

    def non_play_actions(self, seat: int) -> list[Action]:
        """The non-play actions of :meth:`legal_actions` without listing a play:
        the bids while bidding and robbing, ``pass`` for a follower."""
        if seat != self.turn or self.escaped is not None:
            return []
        if self.stage == "play":
            return [_PASS[seat]] if self._standing is not None else []
        return [a for a in self.legal_actions(seat) if a.type != "play"]

    def default_action(self, seat: int) -> Action:
        """``no_call`` / ``no_rob`` while bidding; ``pass`` when following; a leader
        plays its lowest single card (rulings.md "Shared": the lowest legal play with
        the fewest cards)."""
        phase = self.stage
        if phase == "bidding":
            return Action(seat, "no_call")
        if phase == "robbing":
            return Action(seat, "no_rob")
        if phase == "play" and self._standing is not None:
            return Action(seat, "pass")
        return Action(seat, "play", (self._hands[seat][0],))

    def _apply(self, action: Action) -> list[Event]:
        typ = action.type
        if typ not in _KNOWN_TYPES:
            raise RulesError("unknown_action", f"no action {typ!r} in doudizhu")
        seat = action.seat
        assert seat is not None
        phase = self.stage
        if phase == "play":
            if typ not in _PLAY_TYPES:
                raise RulesError("wrong_phase", f"{typ!r} is not a play-phase action")
            if seat != self.turn:
                raise RulesError("not_your_turn", f"seat {self.turn} is to play")
            if typ == "pass":
                if action.cards:
                    raise RulesError("malformed_action", "a pass carries no cards")
                return self._pass(seat)
            return self._play(seat, action.cards)
        if phase == "bidding":
            if typ not in _BID_TYPES:
                raise RulesError("wrong_phase", f"{typ!r} is not a bidding action")
            bidding.check_bid_turn(self, seat, action)
            return bidding.bid(self, seat, typ)
        # robbing
        if typ not in _ROB_TYPES:
            raise RulesError("wrong_phase", f"{typ!r} is not a robbing action")
        if seat != self.turn:
            if seat in self.no_called:
                raise RulesError("not_eligible", f"seat {seat} said no_call and may not rob")
            raise RulesError("not_your_turn", f"seat {self.turn} is to rob or not")
        if action.cards:
            raise RulesError("malformed_action", f"{typ!r} carries no cards")
        return bidding.rob(self, seat, typ)

    # -- play ----------------------------------------------------------------------------

    def _readings(self, pc: list[int]) -> list[dc.Reading]:
        """:func:`dc.readings` under this game's options, memoised by rank counts."""
        key = (self.jokers_as_wings, self.pair_as_two_singles, *pc)
        got = _READINGS_CACHE.get(key)
        if got is None:
            if len(_READINGS_CACHE) > _PLAY_CACHE_MAX:
                _READINGS_CACHE.clear()
            got = _READINGS_CACHE[key] = dc.readings(
                pc, self.jokers_as_wings, self.pair_as_two_singles
            )
        return got

    def classify(self, cards: tuple[str, ...] | list[str]) -> list[dc.Reading]:
        """Every reading ``(kind, main)`` of ``cards`` under this game's options."""
        pc = [0] * dc.NRANKS
        for card in cards:
            pc[dc.CARD_RANK[card]] += 1
        return dc.readings(pc, self.jokers_as_wings, self.pair_as_two_singles)

    def _play(self, seat: int, cards: tuple[str, ...]) -> list[Event]:
        n = len(cards)
        if not n:
            raise RulesError("invalid_combination", "a play needs cards")
        pre = self._pre[seat]
        rank_of = dc.CARD_RANK
        standing = self._standing
        if n == 1:  # fast path: a single
            card = cards[0]
            r = rank_of.get(card, -1)
            if r < 0:
                raise RulesError("malformed_cards", f"not a card: {card!r}")
            if card not in pre[r][-1]:
                raise RulesError("cards_not_in_hand", f"seat {seat} does not hold {card}")
            if standing is not None and not (standing[0] == dc.SINGLE and r > standing[2]):
                if standing[0] == dc.SINGLE or standing[0] in (dc.BOMB, dc.ROCKET):
                    raise RulesError("does_not_beat", "the play does not beat the standing play")
                raise RulesError(
                    "must_follow_shape", f"the trick needs a {standing[0]} of {standing[1]} cards"
                )
            return self._commit(seat, cards, dc.SINGLE, r)
        pc = [0] * dc.NRANKS
        for card in cards:
            r = rank_of.get(card, -1)
            if r < 0:
                raise RulesError("malformed_cards", f"not a card: {card!r}")
            if card not in pre[r][-1]:
                raise RulesError("cards_not_in_hand", f"seat {seat} does not hold {card}")
            pc[r] += 1
        if len(set(cards)) != n:
            raise RulesError("cards_not_in_hand", "the same card twice")
        rs = self._readings(pc)
        if not rs:
            raise RulesError("invalid_combination", f"{list(cards)} is no combination")
        if standing is None:
            reading = rs[0] if len(rs) == 1 else dc.lead_reading(rs, n)
        else:
            good = [r for r in rs if dc.beats(r, n, standing)]
            if not good:
                skind, sn, _ = standing
                same = any(k == skind for k, _ in rs) and n == sn
                if same or skind in (dc.BOMB, dc.ROCKET):
                    raise RulesError("does_not_beat", "the play does not beat the standing play")
                raise RulesError("must_follow_shape", f"the trick needs a {skind} of {sn} cards")
            reading = good[0] if len(good) == 1 else max(good, key=_main)
        return self._commit(seat, tuple(sorted(cards, key=dc.CARD_KEY.__getitem__)), *reading)

    def _commit(self, seat: int, played: tuple[str, ...], kind: str, main: int) -> list[Event]:
        """Apply a checked play (``played`` sorted) read as ``(kind, main)``."""
        n = len(played)
        # remove the cards from the hand (sorted hand, held set, counts, prefixes)
        counts, pre, hand = self._counts[seat], self._pre[seat], self._hands[seat]
        prefixes = _PREFIXES
        if n == 1:
            card = played[0]
            hand.remove(card)
            t = pre[main][-1]
            t = t[1:] if t[0] == card else tuple([x for x in t if x != card])
            counts[main] -= 1
            pre[main] = prefixes[t]
        else:
            for card in played:
                hand.remove(card)
            for rr in dict.fromkeys(map(dc.CARD_RANK.__getitem__, played)):
                t = tuple([x for x in pre[rr][-1] if x not in played])
                counts[rr] = len(t)
                pre[rr] = prefixes[t]
        self.sizes[seat] -= n
        self._standing = (kind, n, main)
        self._standing_seat = seat
        self._passes = 0
        self.plays_by[seat] += 1
        if kind == dc.BOMB or kind == dc.ROCKET:
            self.bombs += 1
            if self.bomb_doubles:
                self.multiplier *= 2
        name = dc.PUBLIC_NAME[kind]
        self.trick.append((seat, played, name))
        data: dict[str, Any] = {
            "seat": seat, "cards": list(played), "combination": name, "trick": self.tricks_done,
        }
        kickers = _KICKERS.get(kind)
        if kickers:
            data["kickers"] = kickers
        if kind == dc.BOMB or kind == dc.ROCKET or 0 < self.sizes[seat] <= 2:
            # 炸弹 / 王炸 / 报单 / 报双, and the multiplier a bomb doubled
            data["announce"] = results.play_announcements(kind, self.sizes[seat])
            data["multiplier"] = self.multiplier
        new, set_type, set_data, set_to = _new, _set_e_type, _set_e_data, _set_e_to
        played_event = new(Event)
        set_type(played_event, "played")
        set_data(played_event, data)
        set_to(played_event, None)
        hand_event = new(Event)
        set_type(hand_event, "hand")
        set_data(hand_event, {"cards": hand[:]})
        set_to(hand_event, seat)
        events = [played_event, hand_event]
        if self.sizes[seat] == 0:
            scoring.finish(self, seat)
        else:
            self.turn = (seat + 1) % SEATS
        return events

    def _pass(self, seat: int) -> list[Event]:
        if self._standing is None:
            raise RulesError("cannot_pass", "the leader of a trick must play")
        self._passes += 1
        self.trick.append((seat, (), ""))
        passed = _new(Event)
        _set_e_type(passed, "passed")
        _set_e_data(passed, {"seat": seat})
        _set_e_to(passed, None)
        events = [passed]
        if self._passes == SEATS - 1:
            leader = self._standing_seat
            events.append(_event("trick_won", {"seat": leader, "next_leader": leader}))
            self.last_trick = self.trick
            self.trick = []
            self.tricks_done += 1
            self._standing = None
            self._passes = 0
            self.turn = leader
        else:
            self.turn = (seat + 1) % SEATS
        return events

    # -- view ----------------------------------------------------------------------------

    def view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see: its own hand, every seat's card count, the bids,
        the kitty once shown, the current and last trick, the multiplier."""
        return {
            "game": self.name,
            "phase": self.phase,
            "seat": seat,
            "hand": self.hand(seat),
            "hand_counts": list(self.sizes),
            "to_act": self.to_act(),
            "first": self.first,
            "bids": [dict(b) for b in self.bids],
            "caller": self.caller,
            "landlord": self.landlord,
            "kitty": list(self.bottom) if self.landlord is not None else None,
            "multiplier": self.multiplier,
            "bombs": self.bombs,
            "trick": [entry(p) for p in self.trick],
            "last_trick": [entry(p) for p in self.last_trick],
            "can_pass": self.stage == "play" and self._standing is not None,
            "timeouts": list(self.timeouts),
        }

    # -- the end and what is shown ---------------------------------------------------------

    def _result(self) -> Result:
        return scoring.result(self)

    def _result_detail_on_escape(self) -> dict[str, Any]:
        return scoring.detail_on_escape(self)

    def escape_points(self, seat: int) -> list[int]:
        """What each seat gets if ``seat`` escapes now (:func:`scoring.escape_points`)."""
        return scoring.escape_points(self, seat)

    def result_lines(self) -> list[dict[str, Any]]:
        """The settlement lines (:func:`results.result_lines`); ``wrong_phase``
        before the end."""
        self.result()
        return results.result_lines(self)

    @classmethod
    def check_options(cls, options: Mapping[str, Any]) -> None:
        """As the constructor checks them (:func:`~paiju.games.doudizhu.deal.parse_options`)."""
        parse_options(options)

    def scores_view(self) -> dict[str, Any]:
        """看分 (:func:`shown.scores_view`)."""
        return shown.scores_view(self)

    def last_trick_view(self) -> dict[str, Any]:
        """上一轮 (:func:`shown.last_trick_view`)."""
        return shown.last_trick_view(self)

    def display(self) -> dict[str, Any]:
        """The public display (:func:`shown.display`)."""
        return shown.display(self)

    def deck_cards(self) -> list[str]:
        """One 54-card deck (seed 002 发牌)."""
        return deck(1)

    def played_cards(self) -> list[str]:
        """The deck less every hand and, until a landlord takes it, the kitty
        face down: what was played."""
        out = Counter(deck(1))
        for h in self._hands:
            out.subtract(h)
        if self.landlord is None:
            out.subtract(self.bottom)
        return list(out.elements())

    def shown_held(self) -> list[list[str]]:
        """The kitty (底牌), shown to all when the landlord takes it, in the
        landlord's hand until played (seed 002: 底牌亮出)."""
        out: list[list[str]] = [[] for _ in range(SEATS)]
        if self.landlord is not None:
            held = set(self._hands[self.landlord])
            out[self.landlord] = [c for c in self.bottom if c in held]
        return out
