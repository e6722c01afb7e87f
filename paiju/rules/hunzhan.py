"""混战 hunzhan: four players each for themselves, two decks without 3, 4, 6.

Sources: seed 000 (the rules part), shared/spec/rulings.md sections "hunzhan",
"Shared by all games" and "Settlement" (escape), records.md (``deal.order``
and a declare's ``dealt``). docs/rules/hunzhan.md states the rules as
implemented with every ruling.

Phases:

- ``declaring`` (叫主/反主, while cards are dealt): any seat may ``declare`` with
  one ten (that suit is trump) or a pair of equal jokers (no-trump 无主); each
  declare must be strictly stronger than the standing one (BJ pair > SJ pair >
  ♠10 > ♥10 > ♣10 > ♦10). Nobody is *to act* (``to_act()`` is empty). The
  system's ``end_declare`` closes the window: with no declaration the game
  ends as a redeal; otherwise the last declarer leads.
- ``play``: 21 tricks of single / pair / run-of-pairs leads; followers follow
  suit and shape and obey the two point rules (出牌限制). A trick's points go to
  its winner, who leads the next.
- ``finished``: ``points`` = captured − 60 per seat.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from itertools import combinations
from typing import Any, ClassVar

from paiju.rules.cards import Card, check_deal, parse_cards
from paiju.rules.engine import Action, Event, Game, Result
from paiju.rules.errors import RulesError
from paiju.rules.hunzhan_cards import (
    DECK,
    ORDERS,
    POINTS,
    TRUMP,
    TrumpOrder,
    classify,
    lead_options,
    multisets,
)

#: Seats (seed 000: 4人参与).
SEATS = 4
#: Cards per hand: 84 / 4, no kitty (rulings.md "hunzhan").
HAND_SIZE = 21
#: Par of the score: a seat's points are captured − 60 (seed 000 积分).
PAR = 60

#: Options with their defaults and allowed ranges (rulings.md "Shared"; the
#: timing options are used by the table service, the engine only checks them).
OPTIONS: dict[str, tuple[int, int, int]] = {
    "turn_seconds": (20, 1, 3600),
    "declare_grace_seconds": (5, 0, 600),
    "reconnect_seconds": (90, 0, 3600),
}

#: Declaration strength (叫主/反主 order, seed 000 叫主): a key of sorted cards →
#: strength. BJ pair > SJ pair > ♠10 > ♥10 > ♣10 > ♦10.
DECLARATIONS: dict[tuple[Card, ...], int] = {
    ("BJ", "BJ"): 6,
    ("SJ", "SJ"): 5,
    ("TS",): 4,
    ("TH",): 3,
    ("TC",): 2,
    ("TD",): 1,
}


def declared_trump(cards: tuple[Card, ...]) -> str | None:
    """The trump a declaration makes: the ten's suit, ``None`` (no-trump) for jokers."""
    return cards[0][1] if cards[0][0] == "T" else None


#: Room-wide keys (rulings.md "Settlement") a room's options may carry; the
#: rules accept and ignore them (the ledger uses them).
ROOM_KEYS = frozenset({"base", "unit", "fee_rate"})


def _holds(hand: dict[Card, int], cards: tuple[Card, ...]) -> bool:
    """True where ``hand`` holds every card of ``cards`` (with repeats)."""
    if len(cards) == 1:
        return cards[0] in hand
    need: dict[Card, int] = {}
    for c in cards:
        need[c] = need.get(c, 0) + 1
    return all(hand.get(c, 0) >= k for c, k in need.items())


def _point_cards(cards: tuple[Card, ...] | list[Card]) -> int:
    """How many point cards (5, 10, K, joker) ``cards`` holds."""
    return sum(1 for c in cards if POINTS[c])


def _parse_options(options: Mapping[str, Any]) -> dict[str, int]:
    if not isinstance(options, Mapping):
        raise RulesError("bad_options", "options must be an object")
    out: dict[str, int] = {}
    for key in options:
        if key not in OPTIONS and key not in ROOM_KEYS:
            raise RulesError("bad_options", f"unknown hunzhan option {key!r}")
    for key, (default, lo, hi) in OPTIONS.items():
        value = options.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise RulesError("bad_options", f"{key} must be an integer in {lo}..{hi}")
        out[key] = value
    return out


class Hunzhan(Game):
    """The 混战 engine (seed 000). See the module docstring and docs/rules/hunzhan.md.

    ``deal``: ``hands`` (4 × 21 cards), ``bottom`` (empty or absent), ``first``
    (the seat dealt to first, 先摸牌) and optionally ``order`` (the 84 cards in
    the order dealt: card ``j`` went to seat ``(first + j) % 4``). Raises
    ``RulesError("bad_deal")`` / ``RulesError("bad_options")``.
    """

    name: ClassVar[str] = "hunzhan"
    seats: ClassVar[int] = SEATS

    def __init__(self, options: Mapping[str, Any], deal: Mapping[str, Any]) -> None:
        super().__init__(options, deal)
        self.options = _parse_options(options)
        hands, first, order = self._parse_deal(deal)
        self.first: int = first
        self.order: list[Card] | None = order
        self.dealt_hands: list[list[Card]] = hands
        self.hands: list[dict[Card, int]] = [dict(Counter(h)) for h in hands]
        #: the hands in hand order during play (kept in step with ``hands``)
        self.sorted_hands: list[list[Card]] = []
        self._phase = "declaring"
        self.redeal = False
        self._done = False
        #: the standing declaration: (seat, cards, strength) or None
        self.declaration: tuple[int, tuple[Card, ...], int] | None = None
        self.trump: str | None = None
        self.ord: TrumpOrder = ORDERS[None]
        self.leader: int | None = None
        self.turn = 0
        self.trick: list[tuple[int, tuple[Card, ...]]] = []
        self.trick_points = 0
        self.led_group = TRUMP
        self.led_len = 0
        self.win_seat = 0
        self.win_group = TRUMP
        self.win_level = 0
        self.tricks_played = 0
        self.captured: list[int] = [0] * SEATS
        self.captured_cards: list[list[Card]] = [[] for _ in range(SEATS)]
        self.last_trick: dict[str, Any] | None = None
        self.last_trick_winner: int | None = None
        self._version = 0
        self._cache_version = -1
        self._cache: list[tuple[Card, ...]] = []

    # -- deal ----------------------------------------------------------------------

    @staticmethod
    def _parse_deal(deal: Mapping[str, Any]) -> tuple[list[list[Card]], int, list[Card] | None]:
        if not isinstance(deal, Mapping):
            raise RulesError("bad_deal", "deal must be an object")
        try:
            raw_hands = deal.get("hands")
            if not isinstance(raw_hands, list) or len(raw_hands) != SEATS:
                raise RulesError("bad_deal", "hunzhan deals 4 hands")
            hands = [parse_cards(h) for h in raw_hands]
            bottom = parse_cards(deal.get("bottom") or [])
            order = None if deal.get("order") is None else parse_cards(deal["order"])
        except RulesError as e:
            if e.code == "bad_deal":
                raise
            raise RulesError("bad_deal", e.message) from e
        if bottom:
            raise RulesError("bad_deal", "hunzhan has no kitty")
        if any(len(h) != HAND_SIZE for h in hands):
            raise RulesError("bad_deal", f"every hand has {HAND_SIZE} cards")
        check_deal(hands, [], DECK)
        first = deal.get("first", 0)
        if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < SEATS:
            raise RulesError("bad_deal", "deal.first must be a seat 0..3")
        if order is not None:
            if len(order) != len(DECK):
                raise RulesError("bad_deal", "deal.order must list all 84 cards")
            for s in range(SEATS):
                got = Counter(order[j] for j in range((s - first) % SEATS, len(DECK), SEATS))
                if got != Counter(hands[s]):
                    raise RulesError(
                        "bad_deal", f"deal.order does not deal seat {s}'s hand round-robin"
                    )
        return hands, first, order

    @classmethod
    def random_deal(cls, options: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        """A random deal: ``hands``, ``bottom`` (empty), ``first`` (random seat; the
        table service replaces it from the room's second game with the previous
        game's ``last_trick_winner``, seed 000) and ``order`` (dealt round-robin
        from ``first``)."""
        _parse_options(options)
        order = list(DECK)
        rng.shuffle(order)
        first = rng.randrange(SEATS)
        hands = [order[(s - first) % SEATS :: SEATS] for s in range(SEATS)]
        return {"hands": hands, "bottom": [], "first": first, "order": order}

    # -- state ---------------------------------------------------------------------

    @property
    def phase(self) -> str:
        """``declaring``, ``play`` or ``finished``."""
        return "finished" if self.finished else self._phase

    def _ended(self) -> bool:
        return self._done

    def _to_act(self) -> list[int]:
        return [self.turn] if self._phase == "play" else []

    # -- declaring -----------------------------------------------------------------

    def held_at(self, seat: int, dealt: int | None) -> dict[Card, int]:
        """The cards ``seat`` held after ``dealt`` cards were dealt (records.md
        ``deal.order``); the whole hand when ``dealt`` is None or the deal has
        no ``order``. Raises ``malformed_action`` for ``dealt`` outside 0..84."""
        if dealt is not None and not 0 <= dealt <= len(DECK):
            raise RulesError("malformed_action", f"dealt must be 0..{len(DECK)}")
        if dealt is None or self.order is None:
            return self.hands[seat]
        start = (seat - self.first) % SEATS
        return dict(Counter(self.order[start:dealt:SEATS]))

    def declare_options(self, seat: int, dealt: int | None = None) -> list[Action]:
        """The declarations ``seat`` could make now (the client's declare buttons):
        each a ``declare`` action with the cards shown, strictly stronger than
        the standing declaration, from the cards held after ``dealt`` cards were
        dealt (whole hand when None). Empty outside the declaring phase.
        Raises ``malformed_action`` for a bad ``dealt``."""
        if self.finished or self._phase != "declaring":
            return []
        held = self.held_at(seat, dealt)
        standing = self.declaration[2] if self.declaration else 0
        out: list[Action] = []
        for cards, strength in DECLARATIONS.items():
            if strength > standing and _holds(held, cards):
                out.append(Action(seat, "declare", cards, dealt))
        return out

    def _declare(self, action: Action) -> list[Event]:
        if self._phase != "declaring":
            raise RulesError("wrong_phase", "declaring has closed")
        seat = action.seat
        assert seat is not None
        cards = tuple(sorted(action.cards))
        strength = DECLARATIONS.get(cards)
        if strength is None:
            raise RulesError(
                "invalid_combination", "declare with one ten or a pair of equal jokers"
            )
        held = self.held_at(seat, action.dealt)
        if not _holds(held, cards):
            raise RulesError("cards_not_in_hand", f"seat {seat} does not hold {list(cards)}")
        if self.declaration is not None and strength <= self.declaration[2]:
            raise RulesError("declare_too_weak", "a declare must be stronger than the standing one")
        self.declaration = (seat, cards, strength)
        self._version += 1
        return [
            Event(
                "declared",
                {"seat": seat, "cards": list(cards), "trump": declared_trump(cards),
                 "no_trump": declared_trump(cards) is None},
            )
        ]

    def _end_declare(self, action: Action) -> list[Event]:
        if action.seat is not None:
            raise RulesError("malformed_action", "end_declare is sent by the system (seat null)")
        if self._phase != "declaring":
            raise RulesError("wrong_phase", "declaring has closed")
        self._version += 1
        if self.declaration is None:
            self.redeal = True
            self._done = True
            return [Event("declaring_closed", {"trump": None, "leader": None, "redeal": True})]
        seat, cards, _ = self.declaration
        self.trump = declared_trump(cards)
        self.ord = ORDERS[self.trump]
        key = self.ord.sort_key.__getitem__
        self.sorted_hands = [sorted(h, key=key) for h in self.dealt_hands]
        self._phase = "play"
        self.leader = seat
        self.turn = seat
        return [
            Event(
                "declaring_closed",
                {"trump": self.trump, "no_trump": self.trump is None, "leader": seat,
                 "redeal": False},
            )
        ]

    # -- play ----------------------------------------------------------------------

    def _beats(self, cards: tuple[Card, ...] | list[Card]) -> bool:
        """True where ``cards`` (a follower's play) would win over every play so
        far in this trick (rulings.md: an equal card does not beat)."""
        m = self.led_len
        o = self.ord
        if m == 1:
            c = cards[0]
            g, lv = o.group[c], o.level[c]
        elif m == 2:
            if cards[0] != cards[1]:
                return False
            g, lv = o.group[cards[0]], o.level[cards[0]]
        else:
            cl = classify(cards, o)
            if cl is None:
                return False
            _, g, lv = cl
        if g == self.win_group:
            return lv > self.win_level
        return g == TRUMP

    def _follow_candidates(self, seat: int, fewest: int | None = None) -> list[tuple[Card, ...]]:
        """Plays of ``seat`` that follow suit and shape (before the point rules);
        with ``fewest`` (from :meth:`_fewest_point_cards`) only those holding
        exactly that many point cards."""
        o = self.ord
        key = o.sort_key
        group = o.group
        hand = self.hands[seat]
        m = self.led_len
        g = self.led_group
        distinct = sorted(hand, key=key.__getitem__)
        suited = [(c, hand[c]) for c in distinct if group[c] == g]
        n_suited = sum(k for _, k in suited)
        if n_suited < m and m > 1:
            # every led-suit card is forced; the rest is added freely
            base = [c for c, k in suited for _ in range(k)]
            rest = [(c, hand[c]) for c in distinct if group[c] != g]
            free = m - n_suited
            if fewest is None:
                return [tuple(sorted(base + ms, key=key.__getitem__))
                        for ms in multisets(rest, free)]
            # the free cards hold no more point cards than they must (rulings.md
            # "Point rules", read card by card)
            free_points = fewest - sum(k for c, k in suited if POINTS[c])
            plain_rest = [(c, k) for c, k in rest if not POINTS[c]]
            point_rest = [(c, k) for c, k in rest if POINTS[c]]
            return [tuple(sorted(base + a + b, key=key.__getitem__))
                    for a in multisets(plain_rest, free - free_points)
                    for b in multisets(point_rest, free_points)]
        if m == 1:
            singles: list[tuple[Card, ...]] = (
                [(c,) for c, _ in suited] if n_suited else [(c,) for c in distinct])
            if fewest is None:
                return singles
            return [p for p in singles if (1 if POINTS[p[0]] else 0) == fewest]
        need = min(m // 2, sum(1 for _, k in suited if k >= 2))
        if fewest == 0:
            suited = [(c, k) for c, k in suited if not POINTS[c]]
        pair_cards = [c for c, k in suited if k >= 2]
        if 2 * need == m:
            out = [tuple(c for c in combo for _ in (0, 1))
                   for combo in combinations(pair_cards, need)]
        else:
            out = []
            for ms in multisets(suited, m):
                pairs = sum(1 for i in range(len(ms) - 1) if ms[i] == ms[i + 1])
                if pairs >= need:
                    out.append(tuple(ms))
        if fewest:
            out = [p for p in out if _point_cards(p) == fewest]
        return out

    def _suited(self, seat: int) -> tuple[dict[Card, int], int]:
        """The seat's cards of the led suit and their number."""
        group = self.ord.group
        g = self.led_group
        suited = {c: k for c, k in self.hands[seat].items() if group[c] == g}
        return suited, sum(suited.values())

    def _beating_pool(self, seat: int) -> dict[Card, int] | None:
        """The cards a beating follow must come from (the led suit when the seat
        must play only led-suit cards, else its trumps), or None where no
        follow can be the led shape (part led suit, part other cards)."""
        suited, n_suited = self._suited(seat)
        m = self.led_len
        if n_suited >= m:
            return suited
        if n_suited and m > 1:
            return None
        hand = self.hands[seat]
        group = self.ord.group
        return {c: k for c, k in hand.items() if group[c] == TRUMP}

    def _beating_follows(self, seat: int) -> list[tuple[Card, ...]]:
        """Every follow of ``seat`` that follows suit and beats the trick."""
        pool = self._beating_pool(seat)
        if not pool:
            return []
        m = self.led_len
        return [p for p in lead_options(pool, self.ord) if len(p) == m and self._beats(p)]

    def _fewest_point_cards(self, seat: int) -> int:
        """The fewest point cards a follow (suit and shape) of ``seat`` can hold.

        Led-suit cards forced by follow-suit count as they are; the cards a
        void follower adds freely hold a point card only where too few other
        cards are left to add (rulings.md "Point rules", read card by card).
        With pairs to follow, plain pairs are taken first: a point pair in
        place of a plain one never saves a point card."""
        suited, n_suited = self._suited(seat)
        m = self.led_len
        if n_suited >= m:
            plain_total = sum(k for c, k in suited.items() if not POINTS[c])
            if m == 1:
                return 0 if plain_total else 1
            need = min(m // 2, sum(1 for k in suited.values() if k >= 2))
            plain_pairs = sum(1 for c, k in suited.items() if k >= 2 and not POINTS[c])
            use = min(need, plain_pairs)
            return 2 * (need - use) + max(0, m - 2 * need - (plain_total - 2 * use))
        forced = sum(k for c, k in suited.items() if POINTS[c])
        plain_rest = sum(k for c, k in self.hands[seat].items()
                         if c not in suited and not POINTS[c])
        return forced + max(0, m - n_suited - plain_rest)

    def _legal_follows(self, seat: int) -> list[tuple[Card, ...]]:
        """Follows that also obey the point rules (出牌限制, rulings.md):
        (2) points in the trick → a beating play if there is one; (1) a play
        that does not beat holds no more point cards than the fewest a follow
        must hold (card by card: a point card only where no other card would do
        in its place)."""
        if self.trick_points:
            beating = self._beating_follows(seat)
            if beating:
                return beating
        fewest = self._fewest_point_cards(seat)
        # rule (1): the follows with the fewest point cards, and the beating
        # ones with more
        plays = self._follow_candidates(seat, fewest)
        pointed = [p for p in self._beating_follows(seat) if _point_cards(p) > fewest]
        return plays + pointed

    def _legal_plays(self, seat: int) -> list[tuple[Card, ...]]:
        if self._cache_version != self._version:
            if self.trick:
                plays = self._legal_follows(seat)
            else:
                plays = lead_options(self.hands[seat], self.ord)
            self._cache = plays
            self._cache_version = self._version
        return self._cache

    def _check_follow(self, seat: int, play: tuple[Card, ...]) -> None:
        """Raise the first rule a held follow ``play`` breaks (none: return).

        Order: count (``must_follow_shape``), led suit (``must_follow_suit``),
        pairs (``must_follow_shape``), point rule 2 (``must_beat_points``),
        point rule 1 (``cannot_dump_points``). Source: rulings.md "Following",
        "Point rules"."""
        m = self.led_len
        if len(play) != m:
            raise RulesError("must_follow_shape", f"follow with {m} card(s)")
        group = self.ord.group
        g = self.led_group
        suited, n_suited = self._suited(seat)
        in_suit = [c for c in play if group[c] == g]
        if len(in_suit) != min(m, n_suited):
            raise RulesError("must_follow_suit", "follow the led suit while you can")
        if m > 1:
            have_pairs = sum(1 for k in suited.values() if k >= 2)
            played_pairs = sum(1 for c in set(in_suit) if in_suit.count(c) >= 2)
            if played_pairs < min(m // 2, have_pairs):
                raise RulesError("must_follow_shape", "follow pairs with pairs of the led suit")
        beats = self._beats(play)
        if beats:
            return
        if self.trick_points and self._beating_follows(seat):
            raise RulesError("must_beat_points", "points are in the trick: beat them")
        if _point_cards(play) > self._fewest_point_cards(seat):
            raise RulesError("cannot_dump_points", "a point card that does not beat the trick "
                             "where another card would do in its place")

    def _play(self, action: Action) -> list[Event]:
        if self._phase != "play":
            raise RulesError("wrong_phase", "cards are played after declaring")
        seat = action.seat
        assert seat is not None
        if seat != self.turn:
            raise RulesError("not_your_turn", f"seat {self.turn} is to play")
        cards = action.cards
        if not cards:
            raise RulesError("invalid_combination", "play at least one card")
        hand = self.hands[seat]
        if not _holds(hand, cards):
            raise RulesError("cards_not_in_hand", f"seat {seat} does not hold {list(cards)}")
        o = self.ord
        play = tuple(sorted(cards, key=o.sort_key.__getitem__))
        if not self.trick:
            cl = classify(play, o)
            if cl is None:
                raise RulesError(
                    "invalid_combination", "lead a single, a pair or a run of pairs"
                )
            kind = cl[0]
        else:
            if self._cache_version != self._version or play not in self._cache:
                self._check_follow(seat, play)
            cl = classify(play, o) if len(play) == self.led_len else None
            kind = cl[0] if cl else "mixed"
        # -- valid: mutate --
        self._version += 1
        sorted_hand = self.sorted_hands[seat]
        for c in play:
            sorted_hand.remove(c)
            n = hand[c] - 1
            if n:
                hand[c] = n
            else:
                del hand[c]
        pts = sum(POINTS[c] for c in play)
        if not self.trick:
            assert cl is not None
            self.led_len = len(play)
            self.led_group = self.win_group = cl[1]
            self.win_level = cl[2]
            self.win_seat = seat
        elif self._beats(play):
            c0 = play[0]
            self.win_seat = seat
            if cl is None:  # single
                self.win_group, self.win_level = o.group[c0], o.level[c0]
            else:
                self.win_group, self.win_level = cl[1], cl[2]
        self.trick.append((seat, play))
        self.trick_points += pts
        events = [
            Event("played", {"seat": seat, "cards": list(play), "combination": kind,
                             "trick": self.tricks_played + 1}),
            Event("hand", {"cards": list(sorted_hand)}, to=seat),
        ]
        if len(self.trick) < SEATS:
            self.turn = (seat + 1) % SEATS
            return events
        return events + self._finish_trick()

    def _finish_trick(self) -> list[Event]:
        w = self.win_seat
        pts = self.trick_points
        self.captured[w] += pts
        self.captured_cards[w].extend(c for _, p in self.trick for c in p if POINTS[c])
        self.last_trick = {
            "plays": [{"seat": s, "cards": list(p)} for s, p in self.trick],
            "winner": w,
            "points": pts,
        }
        self.last_trick_winner = w
        self.tricks_played += 1
        self.trick = []
        self.trick_points = 0
        self.leader = w
        self.turn = w
        if not self.hands[w]:
            self._done = True
        return [
            Event("trick_won", {"seat": w, "points": pts,
                                "next_leader": None if self._done else w}),
            Event("scores", {"captured": list(self.captured),
                             "cards": [list(cs) for cs in self.captured_cards]}),
        ]

    # -- engine interface ----------------------------------------------------------

    def _apply(self, action: Action) -> list[Event]:
        if action.type == "play":
            return self._play(action)
        if action.type == "declare":
            return self._declare(action)
        if action.type == "end_declare":
            return self._end_declare(action)
        raise RulesError("unknown_action", f"hunzhan has no action {action.type!r}")

    def legal_actions(self, seat: int) -> list[Action]:
        """Declaring: :meth:`declare_options` for the whole hand. Play: for the
        seat to act, every distinct legal card multiset (canonical tuples in
        hand order); otherwise empty."""
        if self.finished:
            return []
        if self._phase == "declaring":
            return self.declare_options(seat)
        if seat != self.turn:
            return []
        return [Action(seat, "play", p) for p in self._legal_plays(seat)]

    def default_action(self, seat: int) -> Action:
        """The timeout move (rulings.md "Shared"): the lowest legal play with the
        fewest cards — a leader's lowest single; a follower's legal play whose
        highest card is lowest (then the next highest, …). Raises
        ``wrong_phase`` while declaring (the default there is no declaration,
        and nobody is to act), ``not_your_turn`` for a seat not to act."""
        if self.finished:
            raise RulesError("game_over", "the game has finished")
        if self._phase != "play":
            raise RulesError("wrong_phase", "the default while declaring is no declaration")
        if seat != self.turn:
            raise RulesError("not_your_turn", f"seat {self.turn} is to play")
        low = self.ord.low_key
        plays = self._legal_plays(seat)
        best = min(plays, key=lambda p: (len(p), sorted((low[c] for c in p), reverse=True)))
        return Action(seat, "play", best)

    def _sorted_hand(self, seat: int) -> list[Card]:
        if self._phase == "play":
            return list(self.sorted_hands[seat])
        key = self.ord.sort_key
        return sorted((c for c, k in self.hands[seat].items() for _ in range(k)),
                      key=key.__getitem__)

    def scores_detail(self) -> list[dict[str, Any]]:
        """看分: per seat ``{"points": captured points, "cards": the point cards
        that made them}`` (seed 000 第二节 看分; these cards were played openly)."""
        return [{"points": self.captured[s], "cards": list(self.captured_cards[s])}
                for s in range(SEATS)]

    def view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see: own hand (hand order), counts, the declaration,
        trump, the trick so far, the last trick (上一轮), captured points and
        cards (看分). Never another seat's hand."""
        decl = self.declaration
        return {
            "game": self.name,
            "phase": self.phase,
            "seat": seat,
            "hand": self._sorted_hand(seat),
            "hand_counts": [sum(h.values()) for h in self.hands],
            "to_act": self.to_act(),
            "first": self.first,
            "declaration": None if decl is None else {"seat": decl[0], "cards": list(decl[1])},
            "declarer": None if decl is None else decl[0],
            "trump": self.trump,
            "no_trump": self._phase == "play" and self.trump is None,
            "leader": self.leader,
            "turn": self.turn if self._phase == "play" and not self.finished else None,
            "trick": [{"seat": s, "cards": list(p)} for s, p in self.trick],
            "trick_points": self.trick_points,
            "trick_winner": self.win_seat if self.trick else None,
            "tricks_played": self.tricks_played,
            "last_trick": self.last_trick,
            "last_trick_winner": self.last_trick_winner,
            "captured": list(self.captured),
            "scores": self.scores_detail(),
            "redeal": self.redeal,
            "escaped": self.escaped,
        }

    def _detail(self) -> dict[str, Any]:
        return {
            "trump": self.trump,
            "captured": list(self.captured),
            "last_trick_winner": self.last_trick_winner,
            "redeal": self.redeal,
            "declarer": None if self.declaration is None else self.declaration[0],
        }

    def _result(self) -> Result:
        if self.redeal:
            return Result([0] * SEATS, self._detail())
        return Result([c - PAR for c in self.captured], self._detail())

    def _result_detail_on_escape(self) -> dict[str, Any]:
        return self._detail()

    def escape_points(self, seat: int) -> list[int]:
        """Escape (seed 000 例外; rulings.md "Settlement"): the escapee gets
        −3 × (60 − X) for X < 60, −10 for X ≥ 60 (X = its captured points so far);
        each other seat max(0, captured − 60). They do not sum to zero."""
        out = [max(0, c - PAR) for c in self.captured]
        x = self.captured[seat]
        out[seat] = -3 * (PAR - x) if x < PAR else -10
        return out
