"""升级 (shengji) play phase: leads, follows, who wins a trick, 抠底.

Source: shared/seeds/004_87bdd40096bb5c2e.txt sections 发牌 (the dealer leads
the first trick, a single / pair / triple / quad), 跟牌 (following:
:mod:`paiju.games.shengji.follow`), 一轮结束 (the trick's best play leads
next), 一局结束 and 抠底 (the last trick); rulings.md "shengji" (a void seat
wins only with trumps of the lead's exact shape; ties: the first played) and
"Settlement" (the timeout's play). The hot paths (a single on a single lead is
checked and applied inline; plays are shared actions,
:mod:`paiju.games.shengji.actions`) keep the hands' derived lists in step.
"""

from __future__ import annotations

from collections.abc import Sequence

from paiju.games.shengji.actions import LEADS, SINGLES, event, play_actions
from paiju.games.shengji.cards import POINTS, SEATS, SHAPE_NAMES, TRUMP, card_points, group_size
from paiju.games.shengji.display import ShengjiShown
from paiju.games.shengji.follow import check_follow, follows, lowest_follow
from paiju.games.shengji.scoring import kitty_multiplier
from paiju.rules.cards import Card
from paiju.rules.engine import Action, Event
from paiju.rules.errors import RulesError


class ShengjiPlay(ShengjiShown):
    """The ``play`` phase of :class:`paiju.games.shengji.game.Shengji` (abstract)."""

    def _check_play(self, seat: int, cards: tuple[Card, ...]) -> None:
        hand = self._hands[seat]
        trick = self.trick
        if not trick:
            if group_size(cards) is None:
                raise RulesError(
                    "invalid_combination", "lead a single, pair, triple or quad of identical cards"
                )
            if hand[cards[0]] < len(cards):  # identical cards (group_size)
                raise RulesError("cards_not_in_hand", "the seat does not hold these cards")
            return
        lead = trick[0][1]
        cls = self.cls
        check_follow(hand, self._classes(seat).get(cls[lead[0]]), cls, lead, cards)

    def _fast_apply(self, action: Action) -> list[Event] | None:
        """A play of the seat to act in ``play`` (see
        :meth:`~paiju.rules.engine.Game._fast_apply`); the rest goes the
        shared way."""
        if (action.type == "play" and self._phase == "play" and self.escaped is None
                and action.seat == (self.leader + len(self.trick)) % SEATS):
            return self._play(action)
        return None

    def _play(self, a: Action) -> list[Event]:
        seat = a.seat
        assert seat is not None
        trick = self.trick
        if seat != (self.leader + len(trick)) % SEATS:
            raise RulesError("not_your_turn", f"seat {seat} is not to play")
        cards = a.cards
        if trick and len(cards) == 1 == len(trick[0][1]):
            combo = self._single_on_single(seat, cards[0])  # the most common play
        else:
            self._check_play(seat, cards)
            self._take(seat, cards)
            combo = self._placed(cards)
        trick.append((seat, cards))
        listed = self._hand_lists[seat]
        if listed is None:
            listed = self._hand_lists[seat] = self.hand_in_order(self._hands[seat].elements())
        events = [
            event("played", {"seat": seat, "cards": list(cards), "combination": combo,
                             "trick": self.trick_no}, None),
            event("hand", {"cards": list(listed)}, seat),
        ]
        if len(trick) == SEATS:
            events.extend(self._finish_trick())
        return events

    def _single_on_single(self, seat: int, card: Card) -> str:
        """``seat`` plays ``card`` on a single lead: checked (held; the led
        suit followed while the seat has it), taken from the hand, the trick's
        best updated. Returns the combination's name."""
        if self._hands[seat].get(card, 0) < 1:
            raise RulesError("cards_not_in_hand", "the seat does not hold these cards")
        cls = self.cls
        trick = self.trick
        led = cls[trick[0][1][0]]
        c_cls = cls[card]
        if c_cls != led and self._classes(seat).get(led):
            raise RulesError("must_follow_suit", "play as many cards of the led suit as you can")
        self._take(seat, (card,))
        strength = self._strength
        if c_cls in (led, TRUMP) and strength[card] > strength[trick[self.best][1][0]]:
            self.best = len(trick)
        return "single"

    def _take(self, seat: int, cards: Sequence[Card]) -> None:
        """Take ``cards`` (checked held) from ``seat``'s hand, and from its
        sorted lists and its cards by class, in step (``cards.remove``)."""
        hand = self._hands[seat]
        listed = self._hand_lists[seat]
        distinct = self._distinct[seat]
        split = self._by_class[seat]  # (after the checks, which may make it)
        cls = self.cls
        for c in cards:
            k = hand[c] - 1
            if k:
                hand[c] = k
            else:
                hand.pop(c)
                if distinct is not None:
                    distinct.remove(c)
            if listed is not None:
                listed.remove(c)
            if split is not None:
                part = split[cls[c]]
                k = part[c] - 1
                if k:
                    part[c] = k
                else:
                    del part[c]

    def _placed(self, cards: Sequence[Card]) -> str:
        """The name of the combination ``cards`` make in the current trick
        (checked legal), the trick's best updated: a lead, a group of the
        lead's shape, or a mere follow."""
        trick = self.trick
        if not trick:
            self.best = 0
            return SHAPE_NAMES[len(cards)]
        lead = trick[0][1]
        size = len(lead)  # == len(cards) (_check_play)
        first = cards[0]
        if cards.count(first) != size:  # not the lead's shape (group_size)
            return "follow"
        if self._beats(first, trick[self.best][1][0], self.cls[lead[0]]):
            self.best = len(trick)
        return SHAPE_NAMES[size]

    def _beats(self, card: Card, best: Card, led: str) -> bool:
        """A group led by ``card`` (exact lead shape) beats the standing ``best``."""
        c_cls = self.cls[card]
        if c_cls != led and c_cls != TRUMP:
            return False
        strength = self._strength  # (is a trump, power) as one number
        return strength[card] > strength[best]  # equal cards: the first played wins

    def _finish_trick(self) -> list[Event]:
        trick = self.trick
        winner, win_cards = trick[self.best]
        points = POINTS
        pts = sum(points[c] for _, cs in trick for c in cs)
        self.captured[winner] += pts
        if pts:
            self.captured_cards[winner].extend(c for _, cs in trick for c in cs if points[c])
        self.last_trick = trick
        self.last_winner = winner
        self.trick = []
        events = [event("trick_won", {"seat": winner, "points": pts, "next_leader": winner}, None)]
        if not self._hands[winner]:  # all hands are empty together: the last trick
            if winner in self.defenders():
                self.kitty_multiplier = kitty_multiplier(len(win_cards))  # seed 抠底
                bonus = card_points(self.buried) * self.kitty_multiplier
                self.captured[winner] += bonus
            self._phase = "finished"
            events.append(Event("scores", {"captured": list(self.captured),
                                           "cards": [list(cs) for cs in self.captured_cards],
                                           "defender_points": self.defender_points()}))
        else:
            self.leader = winner
            self.trick_no += 1
        return events

    def _lead_options(self, seat: int) -> list[Action]:
        """Every single, pair, triple and quad of identical cards ``seat`` holds."""
        hand = self._hands[seat]
        leads = LEADS[seat]
        return [a for c in self._cards_held(seat) for a in leads[c][hand[c]]]

    def follow_options(self, seat: int) -> list[tuple[Card, ...]]:
        """Every distinct legal follow of ``seat`` to the current trick, each a
        sorted tuple (:func:`~paiju.games.shengji.follow.follows`). Suit part:
        the ``min(m, n)`` cards of the led suit whose partition reaches
        :func:`~paiju.games.shengji.follow.required_pattern`; when the seat
        holds fewer than ``n`` of the suit, all of them plus every multiset of
        the rest. At most C(d + 3, 4) results for d distinct other cards (see
        docs). Raises ``IndexError`` when no trick is led."""
        lead = self.trick[0][1]
        led = self.cls[lead[0]]
        return follows(self._suit_items(seat, led), self._hands[seat], self.cls, led, len(lead))

    def _follow_actions(self, seat: int) -> list[Action]:
        """:meth:`follow_options` as actions."""
        lead = self.trick[0][1]
        n = len(lead)
        led = self.cls[lead[0]]
        if n == 1:  # a card of the led class, or any card without one
            split = self._by_class[seat]
            suit = (self._classes(seat) if split is None else split).get(led)
            return list(map(SINGLES[seat].__getitem__,
                            sorted(suit) if suit else self._cards_held(seat)))
        return play_actions(seat, follows(self._suit_items(seat, led), self._hands[seat],
                                          self.cls, led, n))

    def _default_play(self, seat: int) -> Action:
        """The timeout's play (rulings.md "Shared", "Settlement"): lead the
        lowest single; follow with the legal play whose highest card is lowest
        (then the next, …)."""
        key = self.key.__getitem__
        hand = self._hands[seat]
        if not self.trick:
            return Action(seat, "play", (min(hand, key=key),))
        lead = self.trick[0][1]
        led = self.cls[lead[0]]
        return Action(seat, "play", lowest_follow(self._suit_items(seat, led), hand, self.cls,
                                                  led, len(lead), key))
