"""斗地主 doudizhu: the end, spring and points (seed 002 春天 / 反春, 结算;
rulings.md "doudizhu", "Settlement").

Functions over the engine's state (:class:`ScoreTable`, which
:class:`paiju.games.doudizhu.game.Doudizhu` is): the first seat out of cards
wins for its side; spring (春天: no farmer played) and
anti-spring (反春: the landlord played only its lead) double the multiplier
(option ``spring_doubles``); the landlord wins or loses 2 × multiplier, each
farmer 1 ×; an escapee pays each other seat ``escape_points`` or the
multiplier (doubled for the landlord).
"""

from __future__ import annotations

from typing import Any, Protocol

from paiju.games.doudizhu.deal import SEATS
from paiju.rules.engine import Result


class ScoreTable(Protocol):
    """What the end and the points read and change of a doudizhu game."""

    stage: str
    options: dict[str, Any]
    landlord: int | None
    multiplier: int
    bombs: int
    spring: bool
    spring_doubles: bool
    redeal: bool
    winner: int | None
    plays_by: list[int]
    escaped: int | None


def finish(g: ScoreTable, winner: int) -> None:
    """``winner`` went out: the game ends; spring or anti-spring is marked (and
    doubles the multiplier where ``spring_doubles``)."""
    g.winner = winner
    g.stage = "finished"
    landlord = g.landlord
    assert landlord is not None
    if winner == landlord:
        spring = all(g.plays_by[s] == 0 for s in range(SEATS) if s != landlord)
    else:
        spring = g.plays_by[landlord] == 1  # anti-spring 反春
    g.spring = spring
    if spring and g.spring_doubles:
        g.multiplier *= 2


def detail(g: ScoreTable) -> dict[str, Any]:
    """The result's ``detail``: landlord, multiplier, bombs, spring, redeal."""
    return {
        "landlord": g.landlord,
        "multiplier": g.multiplier,
        "bombs": g.bombs,
        "spring": g.spring,
        "redeal": g.redeal,
    }


def result(g: ScoreTable) -> Result:
    """The points of a finished game (no escape): the landlord ±2 × multiplier,
    each farmer ∓1 ×; a redeal scores nothing (kind ``redeal``)."""
    out = detail(g)
    if g.redeal:
        return Result([0, 0, 0], out, "redeal")
    landlord, m = g.landlord, g.multiplier
    assert landlord is not None and g.winner is not None
    sign = 1 if g.winner == landlord else -1
    points = [2 * m * sign if s == landlord else -m * sign for s in range(SEATS)]
    out["winner"] = g.winner
    out["spring_kind"] = None if not g.spring else "spring" if sign == 1 else "anti_spring"
    return Result(points, out)


def escape_points(g: ScoreTable, seat: int) -> list[int]:
    """``seat`` pays each other seat the option ``escape_points`` or, by default,
    the multiplier so far, doubled when ``seat`` is the landlord (rulings.md
    "Settlement": a farmer escaping at multiplier 4 gives −8, +4, +4)."""
    each = g.options["escape_points"]
    if each is None:
        each = g.multiplier * (2 if seat == g.landlord else 1)
    return [-each * (SEATS - 1) if s == seat else each for s in range(SEATS)]


def detail_on_escape(g: ScoreTable) -> dict[str, Any]:
    """The result's ``detail`` after an escape: :func:`detail` and the escapee."""
    out = detail(g)
    out["escapee"] = g.escaped
    return out
