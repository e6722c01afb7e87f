"""升级 (shengji) play phase: leads, follows, who wins a trick, 抠底.

Source: shared/seeds/004_87bdd40096bb5c2e.txt sections 发牌 (the dealer leads
the first trick, a single / pair / triple / quad), 跟牌 (following:
:mod:`paiju.games.shengji.follow`), 一轮结束 (the trick's best play leads
next), 一局结束 and 抠底 (the last trick); rulings.md "shengji" (a void seat
wins only with trumps of the lead's exact shape; ties: the first played) and
"Settlement" (the timeout's play). The hot paths (a single on a single lead is
checked and applied inline; plays are shared actions,
:mod:`paiju.games.shengji.actions`) keep the hands' derived lists in step.

The engine (:class:`paiju.games.shengji.game.Shengji`) holds the fields and
checks that the seat is to play; the functions take it as a
:class:`TrickState`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol

from paiju.games.shengji.actions import LEADS, SINGLES, event, play_actions
from paiju.games.shengji.cards import POINTS, SEATS, SHAPE_NAMES, TRUMP, card_points, group_size
from paiju.games.shengji.follow import check_follow, follows, iter_follows, lowest_follow
from paiju.games.shengji.scoring import defender_points, defenders, kitty_multiplier
from paiju.games.shengji.state import (
    HandState,
    Trick,
    cards_held,
    classes,
    hand_list,
    suit_items,
)
from paiju.rules.cards import Card
from paiju.rules.engine import Action, Event
from paiju.rules.errors import RulesError


class TrickState(HandState, Protocol):
    """What the tricks read and change besides the hands: ``trick`` (the
    current trick), ``best`` (the index in ``trick`` of the play winning so
    far), ``leader``, ``trick_no``, ``last_trick`` / ``last_winner`` (上一轮),
    ``captured`` (points per seat) and ``captured_cards`` (per seat the point
    cards of the tricks it won), ``dealer``, ``buried`` and
    ``kitty_multiplier`` (抠底), ``stage`` (the phase by the rules)."""

    trick: Trick
    best: int
    leader: int
    trick_no: int
    last_trick: Trick
    last_winner: int | None
    captured: list[int]
    captured_cards: list[list[Card]]
    dealer: int | None
    buried: list[Card]
    kitty_multiplier: int
    stage: str


def play(g: TrickState, a: Action) -> list[Event]:
    """Apply the play ``a``: ``not_your_turn`` (``RulesError``, the state
    unchanged) for a seat not to play, else :func:`place`."""
    seat = a.seat
    assert seat is not None
    if seat != (g.leader + len(g.trick)) % SEATS:
        raise RulesError("not_your_turn", f"seat {seat} is not to play")
    return place(g, seat, a.cards)


def place(g: TrickState, seat: int, cards: tuple[Card, ...]) -> list[Event]:
    """``seat``, the seat to play, plays ``cards`` (raises ``RulesError``,
    the state unchanged, for cards it may not play): the ``played`` event,
    the seat's hand, and when the trick is full :func:`finish_trick`'s."""
    trick = g.trick
    if trick and len(cards) == 1 == len(trick[0][1]):
        combo = single_on_single(g, seat, cards[0])  # the most common play
    else:
        check_play(g, seat, cards)
        take(g, seat, cards)
        combo = combination(g, cards)
    trick.append((seat, cards))
    listed = g.hand_lists[seat]
    if listed is None:
        listed = hand_list(g, seat)
    events = [
        event("played", {"seat": seat, "cards": list(cards), "combination": combo,
                         "trick": g.trick_no}, None),
        event("hand", {"cards": list(listed)}, seat),
    ]
    if len(trick) == SEATS:
        events.extend(finish_trick(g))
    return events


def check_play(g: TrickState, seat: int, cards: tuple[Card, ...]) -> None:
    """Raise ``RulesError`` unless ``seat`` may play ``cards`` now: a lead of
    1–4 identical cards it holds (``invalid_combination``,
    ``cards_not_in_hand``), or a follow (:func:`~paiju.games.shengji.follow.check_follow`)."""
    hand = g.hands[seat]
    trick = g.trick
    if not trick:
        if group_size(cards) is None:
            raise RulesError(
                "invalid_combination", "lead a single, pair, triple or quad of identical cards"
            )
        if hand[cards[0]] < len(cards):  # identical cards (group_size)
            raise RulesError("cards_not_in_hand", "the seat does not hold these cards")
        return
    lead = trick[0][1]
    cls = g.cls
    check_follow(hand, classes(g, seat).get(cls[lead[0]]), cls, lead, cards)


def single_on_single(g: TrickState, seat: int, card: Card) -> str:
    """``seat`` plays ``card`` on a single lead: checked (held; the led
    suit followed while the seat has it), taken from the hand, the trick's
    best updated. Returns the combination's name."""
    if g.hands[seat].get(card, 0) < 1:
        raise RulesError("cards_not_in_hand", "the seat does not hold these cards")
    cls = g.cls
    trick = g.trick
    led = cls[trick[0][1][0]]
    c_cls = cls[card]
    if c_cls != led and classes(g, seat).get(led):
        raise RulesError("must_follow_suit", "play as many cards of the led suit as you can")
    take(g, seat, (card,))
    strength = g.strength
    if c_cls in (led, TRUMP) and strength[card] > strength[trick[g.best][1][0]]:
        g.best = len(trick)
    return "single"


def take(g: TrickState, seat: int, cards: Sequence[Card]) -> None:
    """Take ``cards`` (checked held) from ``seat``'s hand, and from its
    sorted lists and its cards by class, in step (``cards.remove``)."""
    hand = g.hands[seat]
    listed = g.hand_lists[seat]
    distinct = g.distinct[seat]
    split = g.by_class[seat]  # (after the checks, which may make it)
    cls = g.cls
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


def combination(g: TrickState, cards: Sequence[Card]) -> str:
    """The name of the combination ``cards`` make in the current trick
    (checked legal), the trick's best updated: a lead, a group of the
    lead's shape, or a mere follow."""
    trick = g.trick
    if not trick:
        g.best = 0
        return SHAPE_NAMES[len(cards)]
    lead = trick[0][1]
    size = len(lead)  # == len(cards) (check_play)
    first = cards[0]
    if cards.count(first) != size:  # not the lead's shape (group_size)
        return "follow"
    if beats(g, first, trick[g.best][1][0], g.cls[lead[0]]):
        g.best = len(trick)
    return SHAPE_NAMES[size]


def beats(g: TrickState, card: Card, best: Card, led: str) -> bool:
    """A group led by ``card`` (exact lead shape) beats the standing ``best``
    (of the led class ``led``): it is of the led class or a trump, and
    stronger (equal cards: the first played wins)."""
    c_cls = g.cls[card]
    if c_cls != led and c_cls != TRUMP:
        return False
    strength = g.strength  # (is a trump, power) as one number
    return strength[card] > strength[best]


def finish_trick(g: TrickState) -> list[Event]:
    """The full trick goes to its best play's seat with its points; that seat
    leads next. After the last trick (every hand empty) 抠底 is counted and
    the game ends. The ``trick_won`` event, and ``scores`` after the last."""
    trick = g.trick
    winner, win_cards = trick[g.best]
    points = POINTS
    pts = sum(points[c] for _, cs in trick for c in cs)
    g.captured[winner] += pts
    if pts:
        g.captured_cards[winner].extend(c for _, cs in trick for c in cs if points[c])
    g.last_trick = trick
    g.last_winner = winner
    g.trick = []
    events = [event("trick_won", {"seat": winner, "points": pts, "next_leader": winner}, None)]
    if g.hands[winner]:
        g.leader = winner
        g.trick_no += 1
    else:  # all hands are empty together: the last trick
        events.append(last_trick_won(g, winner, len(win_cards)))
    return events


def last_trick_won(g: TrickState, winner: int, size: int) -> Event:
    """The last trick went to ``winner`` with a group of ``size`` cards: 抠底
    (seed: the buried kitty's points × 2 / 4 / 6 / 8 to the defenders when
    theirs), the game ends. The ``scores`` event."""
    assert g.dealer is not None
    if winner in defenders(g.dealer):
        g.kitty_multiplier = kitty_multiplier(size)  # seed 抠底
        g.captured[winner] += card_points(g.buried) * g.kitty_multiplier
    g.stage = "finished"
    return Event("scores", {"captured": list(g.captured),
                            "cards": [list(cs) for cs in g.captured_cards],
                            "defender_points": defender_points(g.dealer, g.captured)})


def lead_options(g: TrickState, seat: int) -> list[Action]:
    """Every single, pair, triple and quad of identical cards ``seat`` holds."""
    hand = g.hands[seat]
    leads = LEADS[seat]
    return [a for c in cards_held(g, seat) for a in leads[c][hand[c]]]


def follow_options(g: TrickState, seat: int) -> list[tuple[Card, ...]]:
    """Every distinct legal follow of ``seat`` to the current trick, each a
    sorted tuple (:func:`~paiju.games.shengji.follow.follows`). Suit part:
    the ``min(m, n)`` cards of the led suit whose partition reaches
    :func:`~paiju.games.shengji.follow.required_pattern`; when the seat
    holds fewer than ``n`` of the suit, all of them plus every multiset of
    the rest. At most C(d + 3, 4) results for d distinct other cards (see
    docs). Raises ``IndexError`` when no trick is led."""
    lead = g.trick[0][1]
    led = g.cls[lead[0]]
    return follows(suit_items(g, seat, led), g.hands[seat], g.cls, led, len(lead))


def follow_actions(g: TrickState, seat: int) -> list[Action]:
    """:func:`follow_options` as actions."""
    lead = g.trick[0][1]
    n = len(lead)
    led = g.cls[lead[0]]
    if n == 1:  # a card of the led class, or any card without one
        split = g.by_class[seat]
        suit = (classes(g, seat) if split is None else split).get(led)
        return list(map(SINGLES[seat].__getitem__,
                        sorted(suit) if suit else cards_held(g, seat)))
    return play_actions(seat, follows(suit_items(g, seat, led), g.hands[seat], g.cls, led, n))


def iter_plays(g: TrickState, seat: int) -> Iterator[Action]:
    """The legal plays of ``seat``, the seat to play, lazily: its leads
    (:func:`lead_options`), single follows (:func:`follow_actions`), or a
    multi-card follow from :func:`~paiju.games.shengji.follow.iter_follows`,
    the lowest first, one per step."""
    lead = g.trick[0][1] if g.trick else ()
    if len(lead) < 2:
        yield from follow_actions(g, seat) if lead else lead_options(g, seat)
        return
    led = g.cls[lead[0]]
    for t in iter_follows(suit_items(g, seat, led), g.hands[seat], g.cls, led, len(lead),
                          g.key.__getitem__):
        yield Action(seat, "play", t)


def default_play(g: TrickState, seat: int) -> Action:
    """The timeout's play (rulings.md "Shared", "Settlement"): lead the
    lowest single; follow with the legal play whose highest card is lowest
    (then the next, …)."""
    key = g.key.__getitem__
    hand = g.hands[seat]
    if not g.trick:
        return Action(seat, "play", (min(hand, key=key),))
    lead = g.trick[0][1]
    led = g.cls[lead[0]]
    return Action(seat, "play", lowest_follow(suit_items(g, seat, led), hand, g.cls,
                                              led, len(lead), key))
