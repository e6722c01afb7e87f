"""升级 (shengji) AI players: ``normal`` (heuristics with card counting) and
``hard`` (determinized Monte Carlo, rollouts by the normal level's policy).

Seats 0 & 2 and 1 & 3 are partners (seed 004 对家); the defenders (非庄家方)
score the points of the tricks they win, and the buried kitty's points
× 2 / 4 / 6 / 8 when they win the last trick (抠底). The rules used
(docs/rules/shengji.md): point cards 5/10/K (the 5s are trumps), the trumps
(jokers, 5s, 3s, 2s and the trump suit) and their order
(:func:`~paiju.games.shengji.cards.trump_tables`), what wins a trick
(identical cards of the lead's shape, of the led suit or of trumps, higher
than the best so far; ties to the first played). Follow suit and shape come
with ``sv.legal``.

``normal``:

- declaring (亮主 / 冲主): its 3s of the suit it holds most of, when that suit
  is long enough; never over its partner's declaration;
- burying (扣底, the dealer): keeps trumps, point cards and aces, buries the
  lowest other cards, shortest side suits first (to be void in them);
- leading: a sure winner (no unseen card could beat it and no opponent
  showed out of its side suit) with the most points and cards, else a low
  plain card of a long side suit, better one its partner is void in;
- following: each legal play is valued as the points its team is expected
  to take (a winning play holds when no opponent to play after it could
  beat it), plus the points it adds to a trick its partner surely wins,
  less the points it gives to an opponent's trick and the strength it
  spends; so points go on the partner's sure trick, never on an
  opponent's, and an opponent's trick with points is won cheaply.

``hard``: :func:`~paiju.rules.trick_ai.search` over the normal level's
best plays, each sample (:func:`determinize`) dealing the unseen cards to
the other hands and, for a defender, the buried kitty; rollouts play the
rest of the deal with the normal level's policy at every seat, each with
what it would know (:func:`normal_play`; the last trick's 抠底 counted by
the engine), and score the :func:`outcome` for the seat's side: the score
table's points for the defenders' final points, plus a share of those
points as a tie-breaker.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from paiju.games.shengji.cards import DECK_COUNTS, POINTS, SIZES, TRUMP, trump_tables
from paiju.games.shengji.game import Shengji
from paiju.games.shengji.scoring import score_row
from paiju.rules.ai import PlayerFactory, SeatView
from paiju.rules.cards import Card
from paiju.rules.engine import Action, Game
from paiju.rules.errors import RulesError
from paiju.rules.trick_ai import SearchingPlayer, cap, deal_unseen, tricks_of, voids
from paiju.rules.trick_ai import Trick as TrickPlays

SEATS = 4
#: Ranks that are trumps in every suit (seed 004 主牌), besides the jokers.
ALWAYS_TRUMP = "532"


def partner(seat: int) -> int:
    """The seat's partner (对家)."""
    return (seat + 2) % SEATS


def same_team(a: int, b: int) -> bool:
    """True for a seat and itself or its partner."""
    return (a - b) % 2 == 0


@dataclass(slots=True)
class Knowledge:
    """What a seat knows in play: the trump's tables (class, strength,
    order), its hand, the unseen cards (card → count: not in its hand, not
    played, not buried by it) and the classes each seat showed out of."""

    cls: dict[Card, str]
    strength: dict[Card, int]
    hand: Counter[Card]
    unseen: Counter[Card]
    voids: list[set[str]]


def knowledge(sv: SeatView) -> Knowledge:
    """:class:`Knowledge` from the seat's view and history."""
    _, cls, _, strength, _ = trump_tables(sv.view["trump"])
    hand = Counter(sv.view["hand"])
    tricks = tricks_of(sv.history)
    unseen = Counter(DECK_COUNTS[int(sv.view["decks"])])
    unseen.subtract(hand)
    unseen.subtract(sv.view.get("buried") or [])
    for trick in tricks:
        for _, cards in trick:
            unseen.subtract(cards)
    return Knowledge(cls, strength, hand, +unseen, voids(tricks, cls))


def trick_best(cls: dict[Card, str], strength: dict[Card, int],
               plays: Sequence[tuple[int, tuple[Card, ...]]]) -> int:
    """The index in ``plays`` (the trick so far, the lead first) of the
    play winning it: identical cards of the lead's shape, of the led class
    or trumps, stronger than the best before (rulings.md "shengji")."""
    lead = plays[0][1]
    led = cls[lead[0]]
    best = 0
    for i in range(1, len(plays)):
        cards = plays[i][1]
        c = cards[0]
        if (cards.count(c) == len(lead) and cls[c] in (led, TRUMP)
                and strength[c] > strength[plays[best][1][0]]):
            best = i
    return best


def beats(cls: dict[Card, str], strength: dict[Card, int], led: str, size: int,
          best: Card, cards: tuple[Card, ...]) -> bool:
    """True where ``cards`` would win over the best play so far (whose
    first card is ``best``) of a trick led in ``led`` with ``size`` cards."""
    c = cards[0]
    return (cards.count(c) == size and cls[c] in (led, TRUMP)
            and strength[c] > strength[best])


def card_cost(k: Knowledge, card: Card) -> float:
    """How much keeping ``card`` is worth, in points: a trump 3 plus its
    strength's share, a side card its rank's share."""
    s = k.strength[card]
    return 3.0 + (s - 100) / 10.0 if s >= 100 else s / 5.0


def holds_up(k: Knowledge, led: str, size: int, win: Card,
             opponents_after: Sequence[int]) -> bool:
    """True where a play led by ``win`` (``size`` identical cards) winning a
    trick led in ``led`` cannot be beaten by the opponents still to play:
    no unseen stronger group of its class (or of trumps for a side card an
    opponent to play showed out of)."""
    if not opponents_after:
        return True
    wcls = k.cls[win]
    ws = k.strength[win]
    for c, n in k.unseen.items():
        if n >= size and k.strength[c] > ws:
            ccls = k.cls[c]
            if ccls == wcls:
                return False
            if ccls == TRUMP and led != TRUMP and any(
                    led in k.voids[s] and TRUMP not in k.voids[s] for s in opponents_after):
                return False
    return True


def lead_value(k: Knowledge, seat: int, cards: tuple[Card, ...]) -> float:
    """The value of leading ``cards``: a sure winner its points and size; else
    the points and strength it risks, a long side suit or one the partner is
    void in (it may trump) the better."""
    c = cards[0]
    led = k.cls[c]
    pts = sum(POINTS[x] for x in cards)
    cost = sum(card_cost(k, x) for x in cards)
    opps = [(seat + 1) % SEATS, (seat + 3) % SEATS]
    if holds_up(k, led, len(cards), c, opps):
        return 20.0 + pts + 4.0 * len(cards) - 0.5 * cost
    length = sum(n for x, n in k.hand.items() if k.cls[x] == led)
    v = -2.0 * pts - cost - (3.0 if led == TRUMP else -0.3 * length)
    p = partner(seat)
    if led != TRUMP and led in k.voids[p] and TRUMP not in k.voids[p]:
        v += 4.0
    return v


def follow_value(k: Knowledge, seat: int, plays: Sequence[tuple[int, tuple[Card, ...]]],
                 cards: tuple[Card, ...]) -> float:
    """The points following with ``cards`` is expected to bring the seat's
    team (the trick's points if it wins, with the chance it holds; minus
    them if an opponent does), less the strength spent."""
    lead = plays[0][1]
    led = k.cls[lead[0]]
    size = len(lead)
    best = trick_best(k.cls, k.strength, plays)
    at_stake = sum(POINTS[c] for _, p in plays for c in p) + sum(POINTS[c] for c in cards)
    cost = sum(card_cost(k, c) for c in cards)
    after = [(seat + i) % SEATS for i in range(1, SEATS - len(plays))]
    opps_after = [s for s in after if not same_team(s, seat)]
    if beats(k.cls, k.strength, led, size, plays[best][1][0], cards):
        hold = 1.0 if holds_up(k, led, size, cards[0], opps_after) else 0.3
        return (2.0 * hold - 1.0) * at_stake + 2.0 * hold - 0.5 * cost
    winner = plays[best][0]
    if same_team(winner, seat):
        hold = 1.0 if holds_up(k, led, size, plays[best][1][0], opps_after) else 0.3
        return (2.0 * hold - 1.0) * at_stake - cost
    return -at_stake - cost


class Normal:
    """The ``normal`` level: see the module docstring. The choice is a
    function of the view; ``rng`` is kept for the factory."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def declare(self, sv: SeatView) -> Action | None:
        return choose_declaration(sv)

    def decide(self, sv: SeatView) -> Action:
        if sv.view["phase"] == "burying":
            return Action(sv.seat, "bury", choose_bury(sv))
        if len(sv.legal) == 1:
            return sv.legal[0]
        return self.ranked(sv)[0]

    def ranked(self, sv: SeatView) -> list[Action]:
        """``sv.legal`` (plays) best first by the values above (a stable
        sort: equal values keep the engine's order)."""
        trick = [(p["seat"], tuple(p["cards"])) for p in sv.view["trick"]]
        value = play_value(knowledge(sv), sv.seat, trick)
        return sorted(sv.legal, key=lambda a: -value(a))


def play_value(k: Knowledge, seat: int,
               trick: Sequence[tuple[int, tuple[Card, ...]]]) -> Callable[[Action], float]:
    """The normal level's value of a play by ``seat`` knowing ``k``: a
    lead's (:func:`lead_value`) on an empty ``trick``, else a follow's
    (:func:`follow_value`)."""
    if not trick:
        return lambda a: lead_value(k, seat, a.cards)
    return lambda a: follow_value(k, seat, trick, a.cards)


def suit_length(hand: Sequence[Card], suit: str) -> int:
    """The cards of ``suit`` in ``hand`` that are not always trumps."""
    return sum(1 for c in hand if c[1] == suit and c[0] not in ALWAYS_TRUMP and c[1] != "J")


def choose_declaration(sv: SeatView) -> Action | None:
    """亮主 / 冲主: the fewest 3s of the suit the hand holds most of, when it
    holds at least a fifth of the hand in it (one more to overcall), never
    over the partner's declaration."""
    if not sv.legal:
        return None
    hand = list(sv.view["hand"])
    declarer = sv.view.get("declarer")
    if declarer is not None and same_team(int(declarer), sv.seat):
        return None
    best = max(sv.legal, key=lambda a: (suit_length(hand, a.cards[0][1]), -len(a.cards)))
    need = len(hand) / 5.0 + (1 if declarer is not None else 0)
    return best if suit_length(hand, best.cards[0][1]) >= need else None


def choose_bury(sv: SeatView) -> tuple[Card, ...]:
    """扣底: the kitty-size cards least worth keeping: no trump, point card
    or ace while other cards are left; then the shortest side suits and the
    lowest cards first."""
    hand = list(sv.view["hand"])
    _, cls, _, _, order = trump_tables(sv.view["trump"])
    length = Counter(cls[c] for c in hand)

    def keep(c: Card) -> tuple[int, int, int]:
        tier = 2 if cls[c] == TRUMP else 1 if POINTS[c] or c[0] == "A" else 0
        return tier, length[cls[c]], order[c]

    return tuple(sorted(sorted(hand, key=keep)[: int(sv.view["kitty_size"])]))


# -- hard: determinize and rollouts ------------------------------------------------------


def inferred_caps(tricks: Sequence[TrickPlays], cls: dict[Card, str],
                  decks: int) -> list[dict[Card, int]]:
    """Per seat, the most copies of a card it can hold now, from what its
    follows showed: with one or two decks, a pair lead followed with two
    different cards of the led suit shows no pair of it (seed 跟牌: a pair
    while it has one). Cards without an entry: no limit."""
    out: list[dict[Card, int]] = [{} for _ in range(SEATS)]
    if decks > 2:
        return out
    found: list[tuple[int, str, Counter[Card]]] = []
    played: list[Counter[Card]] = [Counter() for _ in range(SEATS)]
    for trick in tricks:
        lead = trick[0][1]
        led = cls[lead[0]]
        for s, cards in trick:
            if s != trick[0][0] and len(lead) == 2:
                in_suit = [c for c in cards if cls[c] == led]
                if len(in_suit) == 2 and in_suit[0] != in_suit[1]:
                    found.append((s, led, Counter(played[s])))
            played[s].update(cards)
    for s, led, before in found:
        for c in DECK_COUNTS[decks]:
            if cls[c] == led:
                cap(out[s], c, max(0, 1 - (played[s][c] - before[c])))
    return out


def determinize(sv: SeatView, rng: random.Random) -> Game:
    """A full game consistent with the seat's view: its own hand as it is,
    the unseen cards dealt to the others by their hand counts (none of a
    class a seat showed out of) and, for a defender, into the buried kitty
    (the shown kitty's cards the dealer has not played are in its hand or
    buried), the record replayed with that bury. Raises ``RuntimeError``
    when none is found in 40 draws."""
    game = sample(sv, rng, 40)
    if game is None:
        raise RuntimeError("no deal consistent with the view was found")
    return game


def sample(sv: SeatView, rng: random.Random, tries: int = 4) -> Game | None:
    """:func:`determinize`, None after ``tries`` failed draws."""
    v = sv.view
    decks = int(v["decks"])
    dealer = int(v["dealer"])
    _, cls, _, _, _ = trump_tables(v["trump"])
    tricks = tricks_of(sv.history)
    shown = voids(tricks, cls)
    played: list[Counter[Card]] = [Counter() for _ in range(SEATS)]
    for trick in tricks:
        for s, cards in trick:
            played[s].update(cards)
    kitty = list(v["kitty_shown"] or [])
    mine_buried = list(v.get("buried") or [])
    unseen = Counter(DECK_COUNTS[decks])
    unseen.subtract(v["hand"])
    unseen.subtract(mine_buried)
    for p in played:
        unseen.subtract(p)
    unseen = +unseen
    buried_hidden = dealer != sv.seat and any(a.type == "bury" for a in sv.history)
    # places: the other seats' hands, then the hidden buried kitty
    places = [s for s in range(SEATS) if s != sv.seat]
    sizes = [int(v["hand_counts"][s]) for s in places]
    barred = [shown[s] for s in places]
    if buried_hidden:
        sizes.append(SIZES[decks][1])
        barred.append(set())
    # cards known to be in a place: a seat's declared 3s it has not played;
    # the dealer's, and the shown kitty's, in its hand or (hidden) buried
    shown_3s: list[Counter[Card]] = [Counter() for _ in range(SEATS)]
    for a in sv.history:
        if a.type == "declare" and a.seat is not None:
            shown_3s[a.seat] |= Counter(a.cards)
    needs: list[tuple[Card, list[int]]] = []
    for i, s in enumerate(places):
        known = shown_3s[s] + (Counter(kitty) if s == dealer else Counter())
        known.subtract(played[s])
        where = [i, len(places)] if s == dealer and buried_hidden else [i]
        needs += [(c, where) for c in (+known).elements()]
    limits = inferred_caps(tricks, cls, decks)
    for _ in range(tries):
        pre: list[list[Card]] = [[] for _ in sizes]
        room = list(sizes)
        pool = Counter(unseen)
        ok = True
        for c, where in needs:
            opts = [i for i in where if room[i] > 0 and cls[c] not in barred[i]]
            if pool[c] <= 0 or not opts:
                ok = False
                break
            i = rng.choice(opts)
            pre[i].append(c)
            room[i] -= 1
            pool[c] -= 1
        if not ok:
            continue
        caps = [{c: max(0, k - pre[i].count(c)) for c, k in limits[s].items()}
                for i, s in enumerate(places)] + ([{}] if buried_hidden else [])
        rest = deal_unseen(list((+pool).elements()), room, barred, cls, rng, caps=caps)
        if rest is None:
            continue
        held: list[list[Card]] = [[] for _ in range(SEATS)]
        held[sv.seat] = list(v["hand"])
        for i, s in enumerate(places):
            held[s] = pre[i] + rest[i]
        buried = mine_buried if dealer == sv.seat else (
            pre[-1] + rest[-1] if buried_hidden else [])
        game = replay(sv, held, played, kitty, buried, dealer)
        if game is not None:
            return game
    return None


def replay(sv: SeatView, held: list[list[Card]], played: list[Counter[Card]],
           kitty: list[Card], buried: list[Card], dealer: int) -> Shengji | None:
    """The game dealt the hands that ``held`` (now) and ``played`` make,
    with the dealer's kitty exchange undone, replayed through the record
    with ``buried`` as the bury; None where the record does not replay."""
    dealt = [Counter(held[s]) + played[s] for s in range(SEATS)]
    if kitty:
        d = dealt[dealer]
        d.update(buried)
        d.subtract(kitty)
        if any(n < 0 for n in d.values()):
            return None
        dealt[dealer] = +d
    hands = [sorted(h.elements()) for h in dealt]
    try:  # without ``order`` the deal's ``first`` checks nothing (docs/rules/shengji.md)
        game = Shengji(sv.options, {"hands": hands, "bottom": sorted(kitty)})
        for a in sv.history:
            if a.type == "bury":
                a = Action(a.seat, "bury", tuple(sorted(buried)))
            game.apply(a)
    except RulesError:
        return None
    return game


def normal_play(g: Shengji, seat: int, shown: list[set[str]]) -> Action:
    """The normal level's choice (:meth:`Normal.ranked`) for ``seat`` in
    ``g`` in play, read from the game instead of a view: the knowledge it
    would have (its hand; unseen: the other hands and, but for the dealer,
    the buried kitty; ``shown``: the classes each seat showed out of)."""
    legal = g.legal_actions(seat)
    if len(legal) == 1:
        return legal[0]
    unseen: Counter[Card] = Counter()
    for s in range(SEATS):
        if s != seat:
            unseen.update(g.hands[s])
    if seat != g.dealer:
        unseen.update(g.buried)
    k = Knowledge(g.cls, g.strength, +g.hands[seat], +unseen, shown)
    return max(legal, key=play_value(k, seat, [(s, tuple(cards)) for s, cards in g.trick]))


def play_and_track(g: Shengji, action: Action, shown: list[set[str]]) -> None:
    """Apply ``action`` (a play) to ``g``, adding to ``shown`` the class its
    seat showed out of (fewer cards of the led class than the lead)."""
    if g.trick and action.seat is not None:
        lead = g.trick[0][1]
        led = g.cls[lead[0]]
        if sum(1 for c in action.cards if g.cls[c] == led) < len(lead):
            shown[action.seat].add(led)
    g.apply(action)


def outcome(decks: int, defender: bool, defender_points: int,
            points_weight: float = 0.0) -> float:
    """A finished game's worth for a seat: its side's score of the seed's
    table (局分计算: 非庄家得分 for a ``defender``, else 庄家得分) for the
    defenders' final ``defender_points`` (抠底 included), plus
    ``points_weight`` per score-table row's width (20 points a deck) of
    points its side kept from the other (the defenders' points for a
    defender, their negation for the dealer's side)."""
    dealer_score, defender_score, _ = score_row(decks, defender_points)
    sign = 1 if defender else -1
    score = defender_score if defender else dealer_score
    return score + sign * points_weight * defender_points / (20.0 * decks)


#: The hard level's defaults: how much another play's average outcome must
#: beat the normal level's choice by (score-table points per game), and by
#: how many standard errors of their paired difference; the weight of the
#: defenders' points beside the table's score (:func:`outcome`); how many
#: of the normal level's best plays are searched.
MARGIN = 0.05
Z = 1.5
POINTS_WEIGHT = 0.5
CANDIDATES = 3


class Hard(SearchingPlayer):
    """The ``hard`` level (:class:`~paiju.rules.trick_ai.SearchingPlayer`),
    in the play only: rollouts to the end of the game (the last trick's
    抠底 counted) with the normal level's policy at every seat
    (:func:`normal_play`), scoring its :func:`outcome` for the seat's side."""

    def __init__(self, rng: random.Random, budget_s: float = 0.16,
                 max_candidates: int = CANDIDATES, rounds: int | None = None,
                 margin: float = MARGIN, z: float = Z,
                 points_weight: float = POINTS_WEIGHT) -> None:
        super().__init__(rng, Normal(rng), budget_s=budget_s, max_candidates=max_candidates,
                         horizon=None, rounds=rounds, margin=margin, z=z)
        self.points_weight = points_weight

    def searches(self, sv: SeatView) -> bool:
        return sv.view["phase"] == "play" and super().searches(sv)

    def sample(self, sv: SeatView) -> Game | None:
        return sample(sv, self.rng)

    def rollout(self, sv: SeatView) -> Callable[[Game, Action], float]:
        defender = not same_team(sv.seat, int(sv.view["dealer"]))
        decks = int(sv.view["decks"])
        weight = self.points_weight
        _, cls, _, _, _ = trump_tables(sv.view["trump"])
        seen = voids(tricks_of(sv.history), cls)

        def play_out(game: Game, first: Action) -> float:
            assert isinstance(game, Shengji)
            shown = [set(v) for v in seen]
            play_and_track(game, first, shown)
            while not game.finished:
                seat = game.to_act()[0]
                play_and_track(game, normal_play(game, seat, shown), shown)
            return outcome(decks, defender, game.defender_points(), weight)

        return play_out


LEVELS: dict[str, PlayerFactory] = {"normal": Normal, "hard": Hard}
