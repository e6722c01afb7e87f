"""升级 (shengji) game state: who holds what, the trump's card tables, the sides.

The state every phase of :class:`paiju.games.shengji.game.Shengji` reads and
writes, and what is derived from the hands (sorted lists, cards by class),
kept in step with the plays. Source: shared/seeds/004_87bdd40096bb5c2e.txt
sections 庄家 / 庄家方 / 非庄家方 (the sides), 主牌 and 牌的大小 (the card
tables of :func:`~paiju.games.shengji.cards.trump_tables`); the hand order
(highest first, suit tie-break) is a paiju ruling (docs/rules/shengji.md).
"""

from __future__ import annotations

from collections.abc import Iterable

from paiju.games.shengji.cards import SEATS, in_hand_order, low_key, trump_tables
from paiju.games.shengji.scoring import defenders
from paiju.rules.cards import Card, Hand
from paiju.rules.engine import Game

#: A trick: ``(seat, cards)`` per play, in playing order.
Trick = list[tuple[int, tuple[Card, ...]]]


class ShengjiState(Game):
    """The attributes of a shengji game and the hand bookkeeping (abstract:
    :class:`paiju.games.shengji.game.Shengji` is the engine).

    Public, read only for callers: ``decks``, ``hand_size``, ``kitty_size``,
    ``hands`` (per seat, card → count), ``kitty`` (the kitty as dealt and
    shown), ``buried`` (the dealer's buried kitty), ``declarer``,
    ``declared``, ``trump`` (a suit letter or ``None``), ``dealer``,
    ``redeal``, ``leader``, ``trick``, ``trick_no``, ``last_trick``,
    ``last_winner``, ``captured`` (points per seat), ``captured_cards`` (per
    seat the point cards that made them, 看分), ``kitty_multiplier``;
    ``power`` / ``cls`` / ``key`` (card → power, class, low key once trump is
    fixed).
    """

    decks: int
    option_dealer: int | None
    escape_pts: int
    turn_seconds: float
    hand_size: int
    kitty_size: int
    first: int
    order: list[Card] | None
    dealt: list[Hand]
    kitty: list[Card]
    buried: list[Card]
    _phase: str
    declarer: int | None
    declared: tuple[Card, ...]
    trump: str | None
    dealer: int | None
    redeal: bool
    power: dict[Card, int]
    cls: dict[Card, str]
    key: dict[Card, tuple[int, int]]
    #: shared by the games of one trump, read only (trump_tables)
    _strength: dict[Card, int]
    _order: dict[Card, int]
    leader: int
    trick: Trick
    #: index in ``trick`` of the play winning so far
    best: int
    trick_no: int
    last_trick: Trick
    last_winner: int | None
    captured: list[int]
    #: per seat, the point cards of the tricks it won (never the buried kitty's)
    captured_cards: list[list[Card]]
    kitty_multiplier: int
    _hands: list[Hand]
    #: each seat's hand in :meth:`_sorted` order, kept in step with its plays
    #: (None: to be sorted again, after the trump or the hand changed)
    _hand_lists: list[list[Card] | None]
    #: in play: each seat's cards by class (card_class), kept in step with its
    #: plays (None: to be made again from the hand)
    _by_class: list[dict[str, dict[Card, int]] | None]
    #: each seat's distinct cards, sorted (None: to be made again)
    _distinct: list[list[Card] | None]

    @property
    def hands(self) -> list[Hand]:
        """Each seat's hand, a multiset (read only: the engine keeps what is
        derived from it in step)."""
        return self._hands

    def _set_hands(self, hands: list[Hand]) -> None:
        """Take ``hands`` as the seats' hands; what was derived is dropped."""
        self._hands = hands
        self._hand_lists = [None] * SEATS
        self._by_class = [None] * SEATS
        self._distinct = [None] * SEATS

    def _hand_changed(self, seat: int) -> None:
        """Drop what was derived from ``seat``'s hand (changed otherwise than by a play)."""
        self._hand_lists[seat] = None
        self._by_class[seat] = None
        self._distinct[seat] = None

    def _cards_held(self, seat: int) -> list[Card]:
        """``sorted(hands[seat])``, kept in step with the plays."""
        distinct = self._distinct[seat]
        if distinct is None:
            distinct = self._distinct[seat] = sorted(self._hands[seat])
        return distinct

    def _classes(self, seat: int) -> dict[str, dict[Card, int]]:
        """``seat``'s hand split by :func:`card_class`: class → card → count."""
        split = self._by_class[seat]
        if split is None:
            split = {}
            cls = self.cls
            for c, k in self._hands[seat].items():
                part = split.get(cls[c])
                if part is None:
                    split[cls[c]] = {c: k}
                else:
                    part[c] = k
            self._by_class[seat] = split
        return split

    def _suit_items(self, seat: int, led: str) -> list[tuple[Card, int]]:
        """``seat``'s ``(card, count)`` of class ``led``, sorted."""
        suit = self._classes(seat).get(led)
        return sorted(suit.items()) if suit else []

    def _fix_trump(self, trump: str) -> None:
        """Take the card tables of ``trump`` (the hand order and classes change)."""
        self._hand_lists = [None] * SEATS
        self._by_class = [None] * SEATS
        power, cls, key, self._strength, self._order = trump_tables(trump)
        self.power, self.cls, self.key = dict(power), dict(cls), dict(key)

    def _hand_sorted(self, seat: int) -> list[Card]:
        """``seat``'s hand in the order players hold it (:meth:`hand_in_order`), a fresh list."""
        cached = self._hand_lists[seat]
        if cached is None:
            cached = self._hand_lists[seat] = self.hand_in_order(self._hands[seat].elements())
        return list(cached)

    def hand_in_order(self, cards: Iterable[Card]) -> list[Card]:
        """``cards`` as a hand is shown (hand events, views): the
        trumps together, then each side suit, high to low
        (:func:`~paiju.games.shengji.cards.in_hand_order`)."""
        return in_hand_order(cards, (self.trump or "") if self.key else "")

    def _sorted(self, cards: Iterable[Card]) -> list[Card]:
        """``cards`` highest first: by the trump's order, or before a trump by
        :func:`low_key` with no trump suit."""
        if not self.key:
            return sorted(cards, key=lambda c: low_key(c, ""), reverse=True)
        return sorted(cards, key=self._order.__getitem__, reverse=True)

    # -- the sides and the phase --------------------------------------------------

    @property
    def phase(self) -> str:
        """``declaring``, ``burying``, ``play`` or ``finished`` (after any end,
        an escape too)."""
        return "finished" if self.escaped is not None else self._phase

    def _ended(self) -> bool:
        return self._phase == "finished"

    @property
    def finished(self) -> bool:
        """True once the game has ended: normally, by a redeal or by an escape
        (:attr:`Game.finished <paiju.rules.engine.Game.finished>`, read in one step)."""
        return self._phase == "finished" or self.escaped is not None

    def to_act(self) -> list[int]:
        """The seat to act (a list of one) while burying or in play; ``[]``
        while declaring or once finished (:meth:`Game.to_act
        <paiju.rules.engine.Game.to_act>`, read in one step)."""
        if self.escaped is None:
            phase = self._phase
            if phase == "play":
                return [(self.leader + len(self.trick)) % SEATS]
            if phase == "burying":
                assert self.dealer is not None
                return [self.dealer]
        return []

    def _to_act(self) -> list[int]:
        if self._phase == "burying":
            assert self.dealer is not None
            return [self.dealer]
        if self._phase == "play":
            return [(self.leader + len(self.trick)) % SEATS]
        return []

    def defenders(self) -> tuple[int, int]:
        """The 非庄家方 seats (the dealer's opponents); ``ValueError`` before a dealer."""
        if self.dealer is None:
            raise ValueError("no dealer yet")
        return defenders(self.dealer)

    def defender_points(self) -> int:
        """Points the defenders captured so far (抠底 included once the last trick is won)."""
        if self.dealer is None:
            return 0
        a, b = defenders(self.dealer)
        return self.captured[a] + self.captured[b]
