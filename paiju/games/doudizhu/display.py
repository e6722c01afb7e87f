"""斗地主 doudizhu: what the platform shows besides the state machine (the
engine interface's display part, :class:`paiju.rules.engine.Game`).

How clients draw the game (:data:`PRESENTATION`: 叫地主 / 抢地主 and the bids'
words), the redeal fee after two all-``no_call`` deals (:data:`POLICY`,
rulings.md "doudizhu"), and functions over the engine's state
(:class:`ShownTable`): 看分, 上一轮 and the display: the landlord and farmers,
the multiplier, the kitty face down until the landlord takes it.
"""

from __future__ import annotations

from typing import Any, Protocol

from paiju.games.doudizhu.deal import SEATS
from paiju.rules.engine import Policy, Presentation

#: How a client draws 斗地主 (its phases' and bids' words, seed 002).
PRESENTATION = Presentation(
    title="斗地主", partners=True,
    phase_labels={"bidding": "叫地主", "robbing": "抢地主"},
    action_labels={"call": "叫地主", "no_call": "不叫", "rob": "抢地主", "no_rob": "不抢"},
    counter_order=("BJ", "SJ", "2", "A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "4", "3"))
#: Two all-``no_call`` deals in a row cost every seat the no-call fee (rulings.md).
POLICY = Policy(redeal_fee_after=2)


class ShownTable(Protocol):
    """What the display reads of a doudizhu game."""

    landlord: int | None
    bottom: list[str]
    multiplier: int
    bombs: int
    bids: list[dict[str, Any]]
    sizes: list[int]
    last_trick: list[tuple[int, tuple[str, ...], str]]


def entry(play: tuple[int, tuple[str, ...], str]) -> dict[str, Any]:
    """The JSON form of a trick entry ``(seat, cards, combination)``: ``{seat,
    cards, combination}``, or ``{seat, pass: true}`` for a pass (no cards)."""
    seat, cards, name = play
    if not cards:
        return {"seat": seat, "pass": True}
    return {"seat": seat, "cards": list(cards), "combination": name}


def scores_view(g: ShownTable) -> dict[str, Any]:
    """看分 (斗地主 has no point cards): the multiplier and what made it,
    ``robs`` (抢地主, each ×2) and ``bombs`` (bombs and rockets played,
    each ×2; rulings.md "doudizhu"), and ``cards_left`` per seat."""
    return {"multiplier": g.multiplier,
            "robs": sum(1 for b in g.bids if b["kind"] == "rob"),
            "bombs": g.bombs, "cards_left": list(g.sizes)}


def last_trick_view(g: ShownTable) -> dict[str, Any]:
    """上一轮: the last finished trick's plays and passes."""
    return {"last_trick": [entry(p) for p in g.last_trick]}


def display(g: ShownTable) -> dict[str, Any]:
    """The landlord (a badge, a side row) once there is one, the farmers,
    the multiplier, the kitty: three backs, then its cards shown to all."""
    rows: list[dict[str, Any]] = [{"label": "倍数", "text": f"×{g.multiplier}",
                                    "id": "multiplier"}]
    if g.landlord is None:
        return {"kitty": {"backs": len(g.bottom)}, "rows": rows}
    return {
        "kitty": {"cards": list(g.bottom)},
        "badges": [[{"text": "地主", "kind": "ll"}] if s == g.landlord
                   else [{"text": "农民", "kind": "farmer"}] for s in range(SEATS)],
        "rows": [{"label": "地主", "seat": g.landlord, "id": "landlord"}, *rows],
    }
