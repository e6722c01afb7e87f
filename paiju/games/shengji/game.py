"""升级 (shengji), seed 004: four players in two partnerships, 1 to 4 decks.

Source: shared/seeds/004_87bdd40096bb5c2e.txt, shared/spec/rulings.md sections
"shengji" and "Settlement", shared/spec/records.md. docs/rules/shengji.md
explains the rules as implemented, with every ruling.

Phases (this module: the engine, its state and its phase machine):

- ``declaring`` (亮主 / 冲主 while the cards are dealt,
  :mod:`~paiju.games.shengji.declaring`): any seat may ``declare`` 3s of one
  suit; nobody is on the clock; the system's ``end_declare`` closes the
  window. Nobody declared: a redeal (the game ends with ``detail.redeal``).
- ``burying`` (扣底, :mod:`~paiju.games.shengji.burying`): the kitty was
  shown to all; the dealer took it and ``bury``\\ s exactly as many cards.
- ``play`` (:mod:`~paiju.games.shengji.play`): tricks of single / pair /
  triple / quad of identical cards; the dealer leads the first.
- ``finished``.

Seats 0 & 2 and 1 & 3 are partners (对家); play goes 0, 1, 2, 3. The engine
holds the state; the parts are functions that take it:
:mod:`~paiju.games.shengji.state` (the hands and their derived lists),
:mod:`~paiju.games.shengji.declaring`, :mod:`~paiju.games.shengji.burying`,
:mod:`~paiju.games.shengji.play` (the phases),
:mod:`~paiju.games.shengji.results` (points, detail, settlement lines),
:mod:`~paiju.games.shengji.display` (views, 看分, 上一轮, the display).
Pure tables and functions: :mod:`~paiju.games.shengji.cards` (card tables
and order), :mod:`~paiju.games.shengji.follow` (follow combinatorics),
:mod:`~paiju.games.shengji.scoring` (table rows, 上台),
:mod:`~paiju.games.shengji.deal` (options, deals),
:mod:`~paiju.games.shengji.position` (positions for :meth:`Shengji.from_position`),
:mod:`~paiju.games.shengji.actions` (fast-built actions and events).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, ClassVar

from paiju.games.shengji import burying, declaring, display, results, state
from paiju.games.shengji.cards import (
    CARD_POINTS,
    SEATS,
    SHAPE_NAMES,
    SIZES,
    TRUMP,
    TRUMP_RANKS,
    card_class,
    card_points,
    card_power,
    dealt_cards,
    group_size,
    is_trump,
    low_key,
    partition,
)
from paiju.games.shengji.deal import Options, parse_deal, parse_options
from paiju.games.shengji.deal import random_deal as _random_deal
from paiju.games.shengji.follow import (
    multiset_combinations,
    required_pattern,
    shaped_combinations,
)
from paiju.games.shengji.play import (
    default_play,
    follow_actions,
    follow_options,
    iter_plays,
    lead_options,
    place,
    play,
)
from paiju.games.shengji.position import bad_position, parse_captured_cards, parse_position
from paiju.games.shengji.scoring import (
    SCORE_TABLES,
    defender_points,
    defenders,
    escape_points,
    score_row,
)
from paiju.games.shengji.state import Trick
from paiju.rules.cards import Card, Hand, deck
from paiju.rules.engine import Action, Event, Game, Policy, Presentation, Result
from paiju.rules.errors import RulesError

__all__ = [
    "CARD_POINTS", "SCORE_TABLES", "SEATS", "SHAPE_NAMES", "SIZES", "TRUMP", "TRUMP_RANKS",
    "Shengji", "card_class", "card_points", "card_power", "dealt_cards", "group_size",
    "is_trump", "low_key", "multiset_combinations", "partition", "required_pattern",
    "score_row", "shaped_combinations",
]


class Shengji(Game):
    """升级 with 3s declaring trump (seed 004). See the module docstring.

    Options (rulings.md "shengji"): ``decks`` 1..4 (default 2); ``dealer``
    ``null`` in a room's first game, else the seat that deals (the previous
    game's ``next_dealer``); ``escape_points`` (default 2); ``turn_seconds``
    (default 20). Deal: ``hands`` (4 lists), ``bottom`` (the kitty), ``first``,
    optional ``order`` (see :func:`dealt_cards`). Raises ``bad_options`` and
    ``bad_deal``. A game in play is made by :meth:`from_position`.

    Public, read only for callers: ``decks``, ``hand_size``, ``kitty_size``,
    ``hands`` (per seat, card → count), ``dealt`` (the hands as dealt),
    ``kitty`` (the kitty as dealt and shown), ``buried`` (the dealer's buried
    kitty, highest first), ``declarer``, ``declared``, ``trump`` (a suit
    letter or ``None``), ``dealer``, ``redeal``, ``leader``, ``trick``,
    ``trick_no``, ``last_trick``, ``last_winner``, ``captured`` (points per
    seat), ``captured_cards`` (per seat the point cards that made them, 看分),
    ``kitty_multiplier``; ``power`` / ``cls`` / ``key`` (card → power, class,
    low key once trump is fixed). The rest is the parts' bookkeeping:
    ``stage`` (the phase by the rules: ``phase`` says ``finished`` after an
    escape too), ``best`` (the index in ``trick`` of the play winning so far),
    and the hands' derived lists and card tables
    (:class:`~paiju.games.shengji.state.HandState`).
    """

    name: ClassVar[str] = "shengji"
    seats: ClassVar[int] = SEATS
    presentation: ClassVar[Presentation] = display.PRESENTATION
    policy: ClassVar[Policy] = display.POLICY
    phase_after_deal: ClassVar[str] = "declaring"
    phase_after_declaring: ClassVar[str] = "burying"
    #: seed 004 leaves the number of decks to the table (rulings.md "shengji").
    choices: ClassVar[Mapping[str, tuple[Any, ...]]] = {"decks": (1, 2, 3, 4)}

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
    stage: str
    declarer: int | None
    declared: tuple[Card, ...]
    trump: str | None
    dealer: int | None
    redeal: bool
    hands: list[Hand]
    hand_lists: list[list[Card] | None]
    distinct: list[list[Card] | None]
    by_class: list[dict[str, dict[Card, int]] | None]
    power: dict[Card, int]
    cls: dict[Card, str]
    key: dict[Card, tuple[int, int]]
    strength: dict[Card, int]
    low_order: dict[Card, int]
    leader: int
    trick: Trick
    best: int
    trick_no: int
    last_trick: Trick
    last_winner: int | None
    captured: list[int]
    captured_cards: list[list[Card]]
    kitty_multiplier: int

    def __init__(self, options: Mapping[str, Any], deal: Mapping[str, Any]) -> None:
        super().__init__(options, deal)
        opts = parse_options(options)
        held, bottom, first, order = parse_deal(opts.decks, deal)
        self._start(opts, held, bottom, first, order)

    def _start(self, opts: Options, held: list[Hand], bottom: list[Card], first: int,
               order: list[Card] | None) -> None:
        """The state of a new game in ``declaring``."""
        self.decks, self.option_dealer = opts.decks, opts.dealer
        self.escape_pts = opts.escape_points
        self.turn_seconds = opts.turn_seconds
        self.hand_size, self.kitty_size = SIZES[self.decks]
        self.first = first
        self.order = order
        self.dealt = held
        state.set_hands(self, [Counter(h) for h in held])
        self.kitty = list(bottom)
        self.buried = []
        self.stage = "declaring"
        self.declarer = None
        self.declared = ()
        self.trump = None
        self.dealer = self.option_dealer
        self.redeal = False
        # play state (the card tables once trump is fixed)
        self.power, self.cls, self.key = {}, {}, {}
        self.strength, self.low_order = {}, {}
        self.leader = 0
        self.trick = []
        self.best = 0
        self.trick_no = 0
        self.last_trick = []
        self.last_winner = None
        self.captured = [0] * SEATS
        self.captured_cards = [[] for _ in range(SEATS)]
        self.kitty_multiplier = 0

    @classmethod
    def from_position(
        cls,
        options: Mapping[str, Any],
        *,
        hands: Sequence[Sequence[str]],
        dealer: int,
        trump: str,
        buried: Sequence[str],
        leader: int | None = None,
        trick: Sequence[Sequence[str]] = (),
        captured: Sequence[int] = (0, 0, 0, 0),
        trick_no: int = 1,
        declarer: int | None = None,
        declared: Sequence[str] = (),
        captured_cards: Sequence[Sequence[str]] | None = None,
    ) -> Shengji:
        """A game in ``play`` at a given position (for tests, puzzles, analysis).

        ``options``: as for the constructor (``decks`` sets the sizes; a
        ``dealer`` option, if given, must be ``dealer``). ``hands``: 4 lists of
        cards, what each seat holds now (after its play to ``trick``).
        ``dealer``: the 庄家 seat 0..3. ``trump``: the trump suit, one of
        ``S H C D``. ``buried``: the dealer's buried kitty (the kitty's size
        of cards; its points count for 抠底). ``leader``: the seat that led
        ``trick`` (or is to lead; default ``dealer``). ``trick``: the plays of
        the current trick so far, 0 to 3 card lists by ``leader``,
        ``leader + 1``, … ; each must have been legal (seed 跟牌) from the
        seat's hand plus that play. ``captured``: points per seat of the tricks
        it won (multiples of 5). ``trick_no``: the current trick's number (1
        = the first). ``declarer`` / ``declared``: the standing declaration,
        for the views (default none). ``captured_cards``: per seat the point
        cards behind ``captured`` (看分; default none listed).

        The original kitty is not part of a position: ``view`` shows
        ``kitty_shown`` as ``[]``. The game goes on by :meth:`apply` as any
        other. Raises ``bad_options`` as the constructor, ``bad_deal`` for
        what :func:`~paiju.games.shengji.position.parse_position` refuses and
        for a trick play that was not legal.
        """
        opts = parse_options(options)
        pos = parse_position(opts.decks, hands=hands, dealer=dealer, trump=trump, buried=buried,
                             leader=leader, trick=trick, captured=captured, trick_no=trick_no,
                             declarer=declarer, declared=declared)
        if opts.dealer is not None and opts.dealer != pos.dealer:
            raise bad_position(f"the option dealer {opts.dealer} is not the dealer {pos.dealer}")
        g = cls.__new__(cls)
        Game.__init__(g, options, {})
        g._start(opts, [Counter(h) for h in pos.hands], [], pos.dealer, None)
        g.dealer, g.trump = pos.dealer, pos.trump
        g.declarer, g.declared = pos.declarer, pos.declared
        state.fix_trump(g, pos.trump)
        g.buried = state.high_first(g, pos.buried)
        g.captured = list(pos.captured)
        g.captured_cards = parse_captured_cards(opts.decks, pos, captured_cards)
        g.stage, g.leader, g.trick_no = "play", pos.leader, pos.trick_no
        for seat, cards in pos.trick:
            try:
                play(g, Action(seat, "play", tuple(sorted(cards))))
            except RulesError as e:
                raise bad_position(f"seat {seat}'s play to the trick: {e.message}") from e
        return g

    @classmethod
    def random_deal(cls, options: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        """A random deal (:func:`paiju.games.shengji.deal.random_deal`): the
        kitty set aside first, the rest dealt from ``first`` (seed 开牌), with
        ``order``. Raises ``bad_options``."""
        return _random_deal(options, rng)

    @classmethod
    def check_options(cls, options: Mapping[str, Any]) -> None:
        """As the constructor checks them (``decks`` 1..4, …;
        :func:`~paiju.games.shengji.deal.parse_options`)."""
        parse_options(options)

    # -- the phase and the seat to act ----------------------------------------------------

    @property
    def phase(self) -> str:
        """``declaring``, ``burying``, ``play`` or ``finished`` (after any end,
        an escape too)."""
        return "finished" if self.escaped is not None else self.stage

    def _ended(self) -> bool:
        return self.stage == "finished"

    @property
    def finished(self) -> bool:
        """True once the game has ended: normally, by a redeal or by an escape
        (:attr:`Game.finished <paiju.rules.engine.Game.finished>`, read in one step)."""
        return self.stage == "finished" or self.escaped is not None

    def to_act(self) -> list[int]:
        """The seat to act (a list of one) while burying or in play; ``[]``
        while declaring or once finished (:meth:`Game.to_act
        <paiju.rules.engine.Game.to_act>`, read in one step)."""
        if self.escaped is None:
            stage = self.stage
            if stage == "play":
                return [(self.leader + len(self.trick)) % SEATS]
            if stage == "burying":
                assert self.dealer is not None
                return [self.dealer]
        return []

    def _to_act(self) -> list[int]:
        if self.stage == "burying":
            assert self.dealer is not None
            return [self.dealer]
        if self.stage == "play":
            return [(self.leader + len(self.trick)) % SEATS]
        return []

    # -- actions -----------------------------------------------------------------------

    def _fast_apply(self, action: Action) -> list[Event] | None:
        """A play of the seat to act in ``play`` (see
        :meth:`~paiju.rules.engine.Game._fast_apply`); the rest goes the
        shared way."""
        seat = action.seat
        if (action.type == "play" and self.stage == "play" and self.escaped is None
                and seat == (self.leader + len(self.trick)) % SEATS):
            assert seat is not None
            return place(self, seat, action.cards)
        return None

    def _apply(self, action: Action) -> list[Event]:
        t = action.type
        if t == "play":
            if self.stage != "play":
                raise RulesError("wrong_phase", "not the time to play")
            return play(self, action)
        if t == "end_declare":
            if self.stage != "declaring":
                raise RulesError("wrong_phase", "the declaring window is closed")
            return declaring.end_declare(self)
        if t not in ("declare", "bury"):
            raise RulesError("unknown_action", f"shengji has no action {t!r}")
        seat = action.seat
        assert seat is not None
        if t == "declare":
            if self.stage != "declaring":
                raise RulesError("wrong_phase", "declaring is over")
            return declaring.declare(self, action)
        if self.stage != "burying":
            raise RulesError("wrong_phase", "not the time to bury")
        if seat != self.dealer:
            raise RulesError("not_your_turn", "the dealer buries")
        return burying.bury(self, action)

    def legal_actions(self, seat: int) -> list[Action]:
        """Every legal action of ``seat`` now. Declaring: :meth:`declare_options`
        (whole hand). Burying: a bounded family of buries (see docs; any
        kitty-size multiset of the hand is accepted). Play: every distinct
        legal card multiset as a sorted tuple."""
        if self.escaped is not None:
            return []
        stage = self.stage
        if stage == "play":  # leads or follows of the seat to play
            if seat != (self.leader + len(self.trick)) % SEATS:
                return []
            return follow_actions(self, seat) if self.trick else lead_options(self, seat)
        if stage == "declaring":
            return declaring.declare_options(self, seat)
        if stage == "burying" and seat == self.dealer:
            return burying.bury_options(self)
        return []

    def non_play_actions(self, seat: int) -> list[Action]:
        """The declares while declaring and the dealer's buries; no play is
        listed (shengji has no pass)."""
        if self.escaped is not None or self.stage == "play":
            return []
        return self.legal_actions(seat)

    def iter_plays(self, seat: int) -> Iterator[Action]:
        """The plays of :meth:`legal_actions`, lazily
        (:func:`~paiju.games.shengji.play.iter_plays`)."""
        if (self.escaped is not None or self.stage != "play"
                or seat != (self.leader + len(self.trick)) % SEATS):
            return iter(())
        return iter_plays(self, seat)

    def default_action(self, seat: int) -> Action:
        """What a timeout applies (rulings.md "Shared", "Settlement"): bury the
        lowest cards; lead the lowest single; follow with the legal play whose
        highest card is lowest (then the next, …). In ``declaring`` nobody is on
        the clock (no declaration): raises ``not_your_turn``, as for any seat not
        to act."""
        if self.finished or seat not in self._to_act():
            raise RulesError("not_your_turn", f"seat {seat} is not to act")
        if self.stage == "burying":
            return Action(seat, "bury", self.default_bury())
        return default_play(self, seat)

    def declare_options(self, seat: int, dealt: int | None = None) -> list[Action]:
        """What the declare buttons of ``seat`` may offer now
        (:func:`~paiju.games.shengji.declaring.declare_options`)."""
        return declaring.declare_options(self, seat, dealt)

    def default_bury(self) -> tuple[Card, ...]:
        """The lowest cards of the dealer's hand
        (:func:`~paiju.games.shengji.burying.default_bury`)."""
        return burying.default_bury(self)

    def follow_options(self, seat: int) -> list[tuple[Card, ...]]:
        """Every distinct legal follow of ``seat`` to the current trick
        (:func:`~paiju.games.shengji.play.follow_options`)."""
        return follow_options(self, seat)

    def hand_in_order(self, cards: Iterable[Card]) -> list[Card]:
        """``cards`` as a hand is shown
        (:func:`~paiju.games.shengji.state.hand_in_order`)."""
        return state.hand_in_order(self, cards)

    # -- the sides and the results -----------------------------------------------------

    def defenders(self) -> tuple[int, int]:
        """The 非庄家方 seats (the dealer's opponents); ``ValueError`` before a dealer."""
        if self.dealer is None:
            raise ValueError("no dealer yet")
        return defenders(self.dealer)

    def defender_points(self) -> int:
        """Points the defenders captured so far (抠底 included once the last trick is won)."""
        return defender_points(self.dealer, self.captured)

    def _result(self) -> Result:
        return results.game_result(self)

    def escape_points(self, seat: int) -> list[int]:
        """The escapee pays ``escape_points`` (default 2) to each other seat
        (rulings.md "Settlement")."""
        return escape_points(seat, self.escape_pts)

    def _result_detail_on_escape(self) -> dict[str, Any]:
        return results.escape_detail(self)

    def result_lines(self) -> list[dict[str, Any]]:
        """The settlement lines (:func:`~paiju.games.shengji.results.result_lines`)."""
        return results.result_lines(self, self.result().detail)

    def carry_over(self) -> dict[str, Any]:
        """``{"dealer": next dealer}`` (seed 抢庄 / 上台; an escape keeps the deal)."""
        nxt = self.result().detail.get("next_dealer")
        return {} if nxt is None else {"dealer": nxt}

    # -- what is shown -----------------------------------------------------------------

    def view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see (:func:`~paiju.games.shengji.display.view`)."""
        return display.view(self, seat)

    def scores_view(self) -> dict[str, Any]:
        """看分 (:func:`~paiju.games.shengji.display.scores_view`)."""
        return display.scores_view(self)

    def scores_detail(self) -> list[dict[str, Any]]:
        """看分 per seat (:func:`~paiju.games.shengji.display.scores_detail`)."""
        return display.scores_detail(self)

    def last_trick_view(self) -> dict[str, Any]:
        """上一轮: ``{"last_trick": {"plays": [{seat, cards}], "winner"}}``."""
        return {"last_trick": display.last_trick(self)}

    def display(self) -> dict[str, Any]:
        """Trump, the dealer's badge, captured points, the kitty while it is
        buried (:func:`~paiju.games.shengji.display.display`)."""
        return display.display(self)

    def deck_cards(self) -> list[Card]:
        """``decks`` decks of 54 (the option ``decks``, 1..4)."""
        return deck(self.decks)

    def played_cards(self) -> list[Card]:
        """The decks less every hand, the buried kitty (never shown) and the
        kitty until the dealer takes it: what was played. The kitty shown to
        all goes into the dealer's hand, who may bury any of it, so it is not
        :meth:`shown_held` (docs/rules/shengji.md "The card counter")."""
        out = Counter(deck(self.decks))
        for h in self.hands:
            out.subtract(h)
        out.subtract(self.buried)
        if self.stage == "declaring" or self.redeal:
            out.subtract(self.kitty)
        return list(out.elements())

    def set_aside_seen(self, seat: int) -> list[Card]:
        """The buried kitty, which the dealer alone has seen."""
        return list(self.buried) if seat == self.dealer else []
