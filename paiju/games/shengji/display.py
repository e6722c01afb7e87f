"""升级 (shengji) display: what the platform shows of a game besides the
state machine (the display part of :class:`paiju.rules.engine.Game`).

The game's words and flags (:data:`PRESENTATION`), how its results carry
(:data:`POLICY`: the next game's dealer, seed 抢庄 / 上台), a seat's view,
看分 (captured points, the defenders' total, each seat's point cards, seed
000 看分 and seed 004 分牌), 上一轮, and the display: trump (seed 004 主牌),
the dealer's badge, the captured points, the kitty shown while the dealer
buries.

The engine (:class:`paiju.games.shengji.game.Shengji`) holds the fields;
the functions take it as a :class:`ShownState`.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol

from paiju.games.shengji.cards import SEATS
from paiju.games.shengji.scoring import defender_points
from paiju.games.shengji.state import HandState, Trick, hand_sorted
from paiju.rules.cards import SUITS, Card
from paiju.rules.engine import Policy, Presentation, Result

#: The game's words and flags for clients (:attr:`Game.presentation
#: <paiju.rules.engine.Game.presentation>`).
PRESENTATION = Presentation(title="升级", own_kitty_shown=True, partners=True)
#: The next game takes the dealer from this one (:meth:`Game.carry_over
#: <paiju.rules.engine.Game.carry_over>`).
POLICY = Policy(carried_options=("dealer",))


class ShownState(HandState, Protocol):
    """What the views read besides the hands: the game's ``name`` and
    ``decks``, ``stage`` (the phase by the rules) and the engine's
    ``phase`` / ``finished`` / ``to_act()`` / ``result()``; the declaration
    (``declarer``, ``declared``), ``dealer``, ``redeal``, the kitty as dealt
    (``kitty``, ``kitty_size``) and as buried (``buried``); the tricks
    (``leader``, ``trick_no``, ``trick``, ``last_trick``, ``last_winner``);
    ``captured`` / ``captured_cards`` (看分); ``escaped``."""

    name: ClassVar[str]
    decks: int
    stage: str
    declarer: int | None
    declared: tuple[Card, ...]
    dealer: int | None
    redeal: bool
    kitty: list[Card]
    kitty_size: int
    buried: list[Card]
    leader: int
    trick_no: int
    trick: Trick
    last_trick: Trick
    last_winner: int | None
    captured: list[int]
    captured_cards: list[list[Card]]
    escaped: int | None

    @property
    def phase(self) -> str: ...

    @property
    def finished(self) -> bool: ...

    def to_act(self) -> list[int]: ...

    def result(self) -> Result: ...


def scores_detail(g: ShownState) -> list[dict[str, Any]]:
    """看分 (seed 000 看分, seed 004 分牌): per seat ``{"points": captured
    points, "cards": the point cards (5, 10, K) of the tricks it won, in
    playing order}``: cards played openly only, so the buried kitty's
    points of 抠底 count in ``points`` (and 闲家得分) but its cards, which
    nobody but the dealer saw, are not listed. A game made by
    ``from_position`` lists the cards it was given with its points
    (``captured_cards``), none by default."""
    return [{"points": g.captured[s], "cards": list(g.captured_cards[s])} for s in range(SEATS)]


def scores_view(g: ShownState) -> dict[str, Any]:
    """看分: ``captured`` points per seat, the defenders' total
    (``defender_points``) and each seat's point cards (``scores``,
    :func:`scores_detail`)."""
    return {"captured": list(g.captured),
            "defender_points": defender_points(g.dealer, g.captured),
            "scores": scores_detail(g)}


def plays(trick: Trick) -> list[dict[str, Any]]:
    """A trick's plays as ``[{"seat", "cards"}]``, in playing order."""
    return [{"seat": s, "cards": list(c)} for s, c in trick]


def last_trick(g: ShownState) -> dict[str, Any]:
    """上一轮: ``{"plays": [{seat, cards}], "winner"}``."""
    return {"plays": plays(g.last_trick), "winner": g.last_winner}


def view(g: ShownState, seat: int) -> dict[str, Any]:
    """What ``seat`` may see (JSON-able): its own hand (trumps, then each
    suit), counts, the declaration, trump, dealer, the shown kitty, the
    trick and the last trick, captured points; the buried kitty only for the
    dealer; the result once finished."""
    stage = g.stage
    v: dict[str, Any] = {
        "game": g.name,
        "phase": g.phase,
        "seat": seat,
        "decks": g.decks,
        "hand": hand_sorted(g, seat),
        "hand_counts": [sum(h.values()) for h in g.hands],
        "to_act": g.to_act(),
        "trump": g.trump,
        "dealer": g.dealer,
        "declarer": g.declarer,
        "declared": list(g.declared),
        "kitty_size": g.kitty_size,
        "kitty_shown": list(g.kitty) if stage != "declaring" and not g.redeal else None,
        "leader": g.leader if stage == "play" else None,
        "trick_no": g.trick_no,
        "trick": plays(g.trick),
        "last_trick": last_trick(g),
        **scores_view(g),
        "escaped": g.escaped,
    }
    if seat == g.dealer and g.buried:
        v["buried"] = list(g.buried)
    if g.finished:
        v["result"] = g.result().to_json()
    return v


def display(g: ShownState) -> dict[str, Any]:
    """Trump once declared (no suit: 无主; ``note``: the 5s, 3s, 2s and
    jokers are trumps always, seed 004 主牌), the dealer (庄), captured
    points, the kitty while the dealer buries it."""
    out: dict[str, Any] = {
        "points": list(g.captured),
        "badges": [[{"text": "庄", "kind": "ll"}] if s == g.dealer else []
                   for s in range(SEATS)],
    }
    if g.trump is not None:
        suit = g.trump if g.trump in SUITS else None
        # seed 004 主牌: 大王和小王、5、3、2、主花色牌 — the 5s, 3s and 2s of
        # every suit are trumps whatever the suit declared
        out["trump"] = {"label": "当前主", "suit": suit, "rank": "",
                        "text": "" if suit else "无主", "note": "5、3、2 与大小王常主"}
    if g.stage == "burying":
        out["kitty"] = {"cards": list(g.kitty)}
    return out
