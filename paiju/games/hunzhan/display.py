"""混战 hunzhan: what the client is shown, computed by the server (seed 000
第二节 看分 / 上一轮, 叫主).

The engine's class attributes the platform reads (:data:`PRESENTATION`,
:data:`POLICY`: the points unit 5, the seed's 最小单位; the phases around the
declaring window) and functions of the game's state, read through
:class:`ShownState`: a seat's view, the display (trump, captured points),
看分 and 上一轮. None changes the state.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol

from paiju.games.hunzhan.cards import TrumpOrder, declared_trump
from paiju.games.hunzhan.deal import SEATS
from paiju.rules.cards import Card
from paiju.rules.engine import Policy, Presentation

#: How clients draw hunzhan: its title.
PRESENTATION = Presentation(title="混战")
#: Points per coin unit: 5 (seed 000 最小单位).
POLICY = Policy(points_unit=5)
#: The phase once the cards are dealt: trump is declared while they are dealt
#: and for a grace after (叫主/反主).
PHASE_AFTER_DEAL = "declaring"
#: The phase after the declaring window: cards are played.
PHASE_AFTER_DECLARING = "play"


class ShownState(Protocol):
    """What the client is shown of a game (the engine has these fields)."""

    name: ClassVar[str]
    #: ``declaring`` or ``play``, whether or not the game has finished
    stage: str
    #: per seat, card → count; in play also in hand order
    hands: list[dict[Card, int]]
    sorted_hands: list[list[Card]]
    ord: TrumpOrder
    #: the seat dealt to first
    first: int
    declaration: tuple[int, tuple[Card, ...], int] | None
    trump: str | None
    leader: int | None
    turn: int
    #: the trick so far: (seat, play) in order, its points and winner so far
    trick: list[tuple[int, tuple[Card, ...]]]
    trick_points: int
    win_seat: int
    tricks_played: int
    last_trick: dict[str, Any] | None
    last_trick_winner: int | None
    #: per seat the points captured and the point cards that made them
    captured: list[int]
    captured_cards: list[list[Card]]
    redeal: bool
    escaped: int | None

    @property
    def phase(self) -> str:
        """``declaring``, ``play`` or ``finished``."""
        ...

    @property
    def finished(self) -> bool:
        """True once the game has ended."""
        ...

    def to_act(self) -> list[int]:
        """The seats whose turn it is now."""
        ...


def hand_in_order(g: ShownState, seat: int) -> list[Card]:
    """``seat``'s hand in hand order (trumps high to low, then ♠ ♥ ♣ ♦), a new list."""
    if g.stage == "play":
        return list(g.sorted_hands[seat])
    key = g.ord.sort_key
    return sorted((c for c, k in g.hands[seat].items() for _ in range(k)),
                  key=key.__getitem__)


def scores_detail(g: ShownState) -> list[dict[str, Any]]:
    """看分: per seat ``{"points": captured points, "cards": the point cards
    that made them}`` (seed 000 第二节 看分; these cards were played openly)."""
    return [{"points": g.captured[s], "cards": list(g.captured_cards[s])}
            for s in range(SEATS)]


def scores_view(g: ShownState) -> dict[str, Any]:
    """看分: per seat the captured points (``captured``) and :func:`scores_detail`
    (``scores``)."""
    return {"captured": list(g.captured), "scores": scores_detail(g)}


def last_trick_view(g: ShownState) -> dict[str, Any]:
    """上一轮: the last trick (``{"plays", "winner", "points"}`` or None) and its winner."""
    return {"last_trick": g.last_trick, "last_trick_winner": g.last_trick_winner}


def display(g: ShownState) -> dict[str, Any]:
    """The trump from the first declaration on (while the window is open,
    the standing declaration's: a ten's suit, a pair of jokers 无主; seed
    000 叫主), else in play 无主; captured points (``points``, per seat)."""
    out: dict[str, Any] = {"points": list(g.captured)}
    if g.stage == "play" or g.declaration is not None:
        suit = declared_trump(g.declaration[1]) if g.declaration is not None else g.trump
        out["trump"] = {"label": "当前主", "suit": suit, "rank": "",
                        "text": "" if suit else "无主"}
    return out


def view(g: ShownState, seat: int) -> dict[str, Any]:
    """What ``seat`` may see: own hand (hand order), counts, the declaration,
    trump, the trick so far, the last trick (上一轮), captured points and
    cards (看分). Never another seat's hand."""
    decl = g.declaration
    in_play = g.stage == "play"
    return {
        "game": g.name,
        "phase": g.phase,
        "seat": seat,
        "hand": hand_in_order(g, seat),
        "hand_counts": [sum(h.values()) for h in g.hands],
        "to_act": g.to_act(),
        "first": g.first,
        "declaration": None if decl is None else {"seat": decl[0], "cards": list(decl[1])},
        "declarer": None if decl is None else decl[0],
        "trump": g.trump,
        "no_trump": in_play and g.trump is None,
        "leader": g.leader,
        "turn": g.turn if in_play and not g.finished else None,
        "trick": [{"seat": s, "cards": list(p)} for s, p in g.trick],
        "trick_points": g.trick_points,
        "trick_winner": g.win_seat if g.trick else None,
        "tricks_played": g.tricks_played,
        "last_trick": g.last_trick,
        "last_trick_winner": g.last_trick_winner,
        "captured": list(g.captured),
        "scores": scores_detail(g),
        "redeal": g.redeal,
        "escaped": g.escaped,
    }
