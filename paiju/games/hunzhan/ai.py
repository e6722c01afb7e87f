"""混战 hunzhan AI players: ``normal`` (heuristics with card counting) and
``hard`` (determinized Monte Carlo over a fast rollout policy).

Every seat plays for itself (seed 000 混战), so every other seat is an
opponent. The rules used (docs/rules/hunzhan.md, seed 000, rulings.md
"hunzhan"): the point cards 5/10/K/joker; the trump order
(:data:`~paiju.games.hunzhan.cards.ORDERS`); what beats the trick
(:func:`~paiju.games.hunzhan.follow.beats`); follow suit and the two point
rules come with ``sv.legal`` (a point card that beats is a play "without
such a card", so it is among the legal follows where the plain one is not).

``normal``:

- declaring (叫主): the declaration under which its hand holds the most
  trumps (weighted by strength), at once when nobody has declared (the
  declarer leads), over a standing one only where its hand gains by it;
- leading: a sure winner (no unseen card of its group could beat it and,
  for a side suit, no seat showed out of it) with the most points and cards;
  else its lowest plain card of a side suit;
- following: each legal play is valued as the trick's points it is expected
  to take (a winning play holds when no unseen card beats it or nobody plays
  after it), less the points it gives away and the strength of the cards it
  spends; so the lowest card when the trick is lost, the cheapest winner
  when points are at stake, never a point card into a trick it loses where a
  plain card can follow.

``hard``: :func:`~paiju.rules.trick_ai.search` over the normal level's
choice and the other legal plays; each sample deals the unseen cards to the
other seats by their hand counts and shown voids and replays the record
(:func:`determinize`), each rollout plays the next tricks with a fast
full-information greedy policy and scores the seat's captured points.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from paiju.games.hunzhan.cards import (
    DECK,
    DECLARATIONS,
    ORDERS,
    POINTS,
    TRUMP,
    TrumpOrder,
    classify,
)
from paiju.games.hunzhan.follow import beats
from paiju.games.hunzhan.game import Hunzhan
from paiju.rules.ai import PlayerFactory, SeatView
from paiju.rules.cards import Card
from paiju.rules.engine import Action, Game
from paiju.rules.errors import RulesError
from paiju.rules.trick_ai import (
    SearchingPlayer,
    cap,
    deal_unseen,
    declared_held,
    tricks_of,
    voids,
)
from paiju.rules.trick_ai import (
    Trick as TrickPlays,
)

SEATS = 4


@dataclass(slots=True)
class Trick:
    """The trick being followed as :func:`~paiju.games.hunzhan.follow.beats`
    reads it: the order, the lead's length and group, the winner's group and
    level (``hands`` is part of the protocol; beating reads no hand)."""

    ord: TrumpOrder
    led_len: int
    led_group: str
    win_group: str
    win_level: int
    hands: list[dict[Card, int]] = field(default_factory=list)


def standing(order: TrumpOrder, plays: Sequence[tuple[int, tuple[Card, ...]]]
             ) -> tuple[Trick, int]:
    """The trick so far (``plays``: ``(seat, cards)`` in order, at least the
    lead) as a :class:`Trick`, and the seat winning it."""
    lead = plays[0][1]
    cl = classify(lead, order)
    assert cl is not None
    t = Trick(order, len(lead), cl[1], cl[1], cl[2])
    winner = plays[0][0]
    for seat, cards in plays[1:]:
        if beats(t, cards):
            winner = seat
            c = classify(cards, order)
            assert c is not None
            t.win_group, t.win_level = c[1], c[2]
    return t, winner


@dataclass(slots=True)
class Knowledge:
    """What a seat knows in play: the order, its hand, the unseen cards
    (card → count: not in its hand, not played) and the groups each seat
    showed out of."""

    order: TrumpOrder
    hand: Counter[Card]
    unseen: Counter[Card]
    voids: list[set[str]]


def knowledge(sv: SeatView) -> Knowledge:
    """:class:`Knowledge` from the seat's view and history."""
    order = ORDERS[sv.view["trump"]]
    hand = Counter(sv.view["hand"])
    tricks = tricks_of(sv.history)
    unseen = Counter(DECK)
    unseen.subtract(hand)
    for trick in tricks:
        for _, cards in trick:
            unseen.subtract(cards)
    return Knowledge(order, hand, +unseen, voids(tricks, order.group))


def card_cost(order: TrumpOrder, card: Card) -> float:
    """How much keeping ``card`` is worth, in points: trumps and high cards
    more (a trump 3 + its level / 5; a side card its level / 4)."""
    lv = order.level[card]
    if order.group[card] == TRUMP:
        return 3.0 + (lv if lv < 20 else (lv - 14) / 2) / 5.0
    return lv / 4.0


def higher_unseen(k: Knowledge, group: str, level: int, size: int) -> bool:
    """True where some unseen card of ``group`` above ``level`` could make a
    combination of ``size`` cards (a single, or a pair of that card)."""
    o = k.order
    need = 1 if size == 1 else 2
    return any(o.group[c] == group and o.level[c] > level and n >= need
               for c, n in k.unseen.items())


def holds_up(k: Knowledge, t: Trick, after: Sequence[int], size: int) -> bool:
    """True where the trick's winning play cannot be beaten by the seats
    ``after`` (to play after it): no unseen higher combination of its group,
    and, for a side group, none of them showed out of it (they could trump)."""
    if not after:
        return True
    if higher_unseen(k, t.win_group, t.win_level, size):
        return False
    if t.win_group != TRUMP:
        trumps_left = any(k.order.group[c] == TRUMP for c in k.unseen)
        if trumps_left and any(t.win_group in k.voids[s] and TRUMP not in k.voids[s]
                               for s in after):
            return False
    return True


def lead_value(k: Knowledge, seat: int, cards: tuple[Card, ...]) -> float:
    """The value of leading ``cards``: a sure winner its points and size; a
    lead others may beat loses its points and the strength of its cards."""
    o = k.order
    cl = classify(cards, o)
    assert cl is not None
    t = Trick(o, len(cards), cl[1], cl[1], cl[2])
    after = [(seat + i) % SEATS for i in (1, 2, 3)]
    pts = sum(POINTS[c] for c in cards)
    cost = sum(card_cost(o, c) for c in cards)
    if holds_up(k, t, after, len(cards)):
        if not pts and len(cards) == 1:
            return -0.8 * cost
        return 20.0 + pts + 4.0 * len(cards) - 0.5 * cost
    length = sum(n for c, n in k.hand.items() if o.group[c] == cl[1])
    return -2.0 * pts - cost - (3.0 if cl[1] == TRUMP else -0.3 * length)


def follow_value(k: Knowledge, seat: int, plays: Sequence[tuple[int, tuple[Card, ...]]],
                 trick_points: int, cards: tuple[Card, ...]) -> float:
    """The expected points of following with ``cards``: a play that beats
    takes the trick's points with the chance it holds; a play that does not
    gives its own points away; the strength spent is subtracted."""
    o = k.order
    t, _ = standing(o, plays)
    pts = sum(POINTS[c] for c in cards)
    cost = sum(card_cost(o, c) for c in cards)
    after = [(seat + i) % SEATS for i in range(1, SEATS - len(plays))]
    if beats(t, cards):
        c = classify(cards, o)
        won = Trick(o, t.led_len, t.led_group,
                    *(c[1:] if c else (o.group[cards[0]], o.level[cards[0]])))
        hold = 1.0 if holds_up(k, won, after, len(cards)) else 0.2
        return hold * (trick_points + pts) - (1.0 - hold) * pts - 0.5 * cost
    return -2.0 * pts - cost


class Normal:
    """The ``normal`` level: see the module docstring. ``rng`` breaks no
    ties (the choice is a function of the view), kept for the factory."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def declare(self, sv: SeatView) -> Action | None:
        return choose_declaration(sv.view["hand"], sv.view.get("declaration"), sv.legal)

    def decide(self, sv: SeatView) -> Action:
        if len(sv.legal) == 1:
            return sv.legal[0]
        return self.ranked(sv)[0]

    def ranked(self, sv: SeatView) -> list[Action]:
        """``sv.legal`` best first by the values above (a stable sort: equal
        values keep the engine's order)."""
        k = knowledge(sv)
        trick = [(p["seat"], tuple(p["cards"])) for p in sv.view["trick"]]
        if not trick:
            return sorted(sv.legal, key=lambda a: -lead_value(k, sv.seat, a.cards))
        pts = int(sv.view["trick_points"])
        return sorted(sv.legal, key=lambda a: -follow_value(k, sv.seat, trick, pts, a.cards))


def trump_strength(hand: Sequence[Card], trump: str | None) -> float:
    """How strong ``hand`` is with ``trump`` (``None``: no-trump): its trumps,
    each worth 1 plus its level's share of the top."""
    o = ORDERS[trump]
    top = max(o.level.values())
    return sum(1.0 + o.level[c] / top for c in hand if o.group[c] == TRUMP)


#: How much stronger (:func:`trump_strength`) an overcall must make the hand.
OVERCALL_GAIN = 0.5


def choose_declaration(hand: Sequence[Card], standing_decl: Mapping[str, object] | None,
                       legal: Sequence[Action]) -> Action | None:
    """叫主: the legal declaration whose trump makes ``hand`` strongest.
    Without a standing declaration it is made whatever the hand (the last
    declarer leads the first trick, seed 000 叫主, and nobody declaring is a
    redeal); over a standing one only where the new trump makes the hand
    stronger than the standing one's by :data:`OVERCALL_GAIN`."""
    if not legal:
        return None
    best = max(legal, key=lambda a: trump_strength(hand, _trump_of(a.cards)))
    if standing_decl is None:
        return best
    cards = tuple(sorted(standing_decl["cards"]))  # type: ignore[call-overload]
    if cards not in DECLARATIONS:
        return None
    gain = trump_strength(hand, _trump_of(best.cards)) - trump_strength(hand, _trump_of(cards))
    return best if gain >= OVERCALL_GAIN else None


def _trump_of(cards: Sequence[Card]) -> str | None:
    return cards[0][1] if cards[0][0] == "T" else None


# -- hard: determinize and rollouts ------------------------------------------------------


def inferred_caps(tricks: Sequence[TrickPlays], order: TrumpOrder) -> list[dict[Card, int]]:
    """Per seat, the most copies of a card it can hold now, from what its
    follows showed (rulings.md "Following", "Point rules"): a pair or run
    followed with fewer pairs of the led suit than asked, no other pair of
    it; a single or pair that did not beat a trick holding points, no card
    (pair) that would have beaten it; a point card on a single lead that did
    not beat, no plain card it could have played instead and none that
    beats. Cards without an entry: no limit."""
    cards = set(DECK)
    found: list[tuple[int, Card, int, int]] = []  # seat, card, most then, played before
    played: list[Counter[Card]] = [Counter() for _ in range(SEATS)]
    for trick in tricks:
        lead = trick[0][1]
        m = len(lead)
        g = order.group[lead[0]]
        points = sum(POINTS[c] for c in lead)
        played[trick[0][0]].update(lead)
        for i in range(1, len(trick)):
            s, play = trick[i]
            t, _ = standing(order, trick[:i])
            in_suit = [c for c in play if order.group[c] == g]
            limits: dict[Card, int] = {}
            if m >= 2 and len(in_suit) == m:
                pairs = {c for c in in_suit if in_suit.count(c) >= 2}
                if len(pairs) < m // 2:
                    for c in cards:
                        if order.group[c] == g and c not in pairs:
                            cap(limits, c, 1)
            if not beats(t, play) and m <= 2:
                dumped = m == 1 and POINTS[play[0]] > 0
                if points or dumped:
                    beaters = _beaters(order, t, g, followed=len(in_suit) == m)
                    for c in beaters:
                        cap(limits, c, m - 1)
                if dumped:
                    for c in cards:
                        if not POINTS[c] and (order.group[c] == g or not in_suit):
                            cap(limits, c, 0)
            found += [(s, c, k, played[s][c]) for c, k in limits.items()]
            played[s].update(play)
            points += sum(POINTS[c] for c in play)
    out: list[dict[Card, int]] = [{} for _ in range(SEATS)]
    for s, c, k, before in found:
        cap(out[s], c, max(0, k - (played[s][c] - before)))
    return out


def _beaters(order: TrumpOrder, t: Trick, led: str, followed: bool) -> list[Card]:
    """The cards of which a seat that did not beat ``t`` held too few to
    beat it: of the led group above the winner (when it followed the led
    group, the winner of it); trumps above the winner, or every trump when
    a side card wins (when it was void)."""
    if followed:
        if t.win_group != led:
            return []
        return [c for c in set(DECK) if order.group[c] == led and order.level[c] > t.win_level]
    return [c for c in set(DECK) if order.group[c] == TRUMP
            and (t.win_group != TRUMP or order.level[c] > t.win_level)]


def determinize(sv: SeatView, rng: random.Random) -> Game:
    """A full game consistent with the seat's view: its own hand as it is,
    the unseen cards dealt to the others by their hand counts, none of a
    group a seat showed out of, and the record replayed (a deal the record
    could not have come from is drawn again; a declarer holds the cards it
    showed and has not played). Raises
    ``RuntimeError`` when none is found in 40 draws."""
    game = sample(sv, rng, 40)
    if game is None:
        raise RuntimeError("no deal consistent with the view was found")
    return game


def sample(sv: SeatView, rng: random.Random, tries: int = 4) -> Game | None:
    """:func:`determinize`, None after ``tries`` failed draws."""
    order = ORDERS[sv.view["trump"]]
    tricks = tricks_of(sv.history)
    shown = voids(tricks, order.group)
    played: list[list[Card]] = [[] for _ in range(SEATS)]
    for trick in tricks:
        for s, cards in trick:
            played[s].extend(cards)
    unseen = Counter(DECK)
    unseen.subtract(sv.view["hand"])
    for p in played:
        unseen.subtract(p)
    others = [s for s in range(SEATS) if s != sv.seat]
    held = declared_held(sv.history)
    for s in others:
        unseen.subtract(held[s])
    limits = inferred_caps(tricks, order)
    caps = []
    for s in others:
        mine = dict(limits[s])
        for c, n in held[s].items():  # the declared cards are placed already
            if c in mine:
                mine[c] = max(0, mine[c] - n)
        caps.append(mine)
    counts = sv.view["hand_counts"]
    first = int(sv.view["first"])
    for _ in range(tries):
        dealt = deal_unseen(list((+unseen).elements()),
                            [counts[s] - held[s].total() for s in others],
                            [shown[s] for s in others], order.group, rng, caps=caps)
        if dealt is None:
            continue
        hands: list[list[Card]] = [[] for _ in range(SEATS)]
        hands[sv.seat] = list(sv.view["hand"])
        for s, got in zip(others, dealt, strict=True):
            hands[s] = got + list(held[s].elements())
        deal = {"hands": [hands[s] + played[s] for s in range(SEATS)], "bottom": [],
                "first": first}
        game = Hunzhan(sv.options, deal)
        try:
            for a in sv.history:
                game.apply(a)
        except RulesError:
            continue
        return game
    return None


def greedy_play(g: Hunzhan, seat: int) -> Action:
    """The rollouts' policy, reading the whole game: lead the highest single
    no other hand can beat, else the lowest plain single; follow with the
    cheapest play that wins the trick where it holds points or is the last
    play, else the lowest play."""
    legal = g.legal_actions(seat)
    o = g.ord
    low = o.low_key
    if len(legal) == 1:
        return legal[0]
    if not g.trick:
        singles = [a for a in legal if len(a.cards) == 1]
        for a in sorted(singles, key=lambda a: -low[a.cards[0]]):
            c = a.cards[0]
            grp, lv = o.group[c], o.level[c]
            if not any(o.group[d] == grp and o.level[d] > lv
                       for s in range(SEATS) if s != seat for d in g.hands[s]):
                return a
            break
        plain = [a for a in singles if not POINTS[a.cards[0]]] or singles
        return min(plain, key=lambda a: low[a.cards[0]])
    last = len(g.trick) == SEATS - 1

    def weight(a: Action) -> tuple[int, int]:
        return (sum(POINTS[c] for c in a.cards), sum(low[c] for c in a.cards))

    if g.trick_points or last:
        winners = [a for a in legal if beats(g, a.cards)]
        if winners and (g.trick_points or any(POINTS[c] for a in winners for c in a.cards)):
            return min(winners, key=lambda a: sum(low[c] for c in a.cards))
    return min(legal, key=weight)


#: How many points per rollout, on average, another play must beat the
#: normal level's choice by for the hard level to take it instead.
MARGIN = 1.0


class Hard(SearchingPlayer):
    """The ``hard`` level (:class:`~paiju.rules.trick_ai.SearchingPlayer`):
    rollouts of 4 tricks scoring the seat's captured points."""

    def __init__(self, rng: random.Random, budget_s: float = 0.12, max_candidates: int = 10,
                 horizon: int = 4, rounds: int | None = None,
                 margin: float = MARGIN) -> None:
        super().__init__(rng, Normal(rng), budget_s=budget_s, max_candidates=max_candidates,
                         horizon=horizon, rounds=rounds, margin=margin)

    def sample(self, sv: SeatView) -> Game | None:
        return sample(sv, self.rng)

    def rollout(self, sv: SeatView) -> Callable[[Game, Action], float]:
        seat = sv.seat
        stop = self.stop(int(sv.view["tricks_played"]))

        def play_out(game: Game, first: Action) -> float:
            assert isinstance(game, Hunzhan)
            before = game.captured[seat]
            game.apply(first)
            while not game.finished and game.tricks_played < stop:
                game.apply(greedy_play(game, game.turn))
            return float(game.captured[seat] - before)

        return play_out


LEVELS: dict[str, PlayerFactory] = {"normal": Normal, "hard": Hard}
