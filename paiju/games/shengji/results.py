"""升级 (shengji) results: a finished game's points, detail and settlement lines.

Source: shared/seeds/004_87bdd40096bb5c2e.txt sections 局分计算 (the table
rows, :func:`~paiju.games.shengji.scoring.table_result`), 上台 (the
defenders go up) and 抢庄 / 上台 (the next dealer), 抠底 (the kitty's points
× 2 / 4 / 6 / 8); rulings.md "shengji" (nobody declared: a redeal) and
"Settlement" (an escape). The settlement lines: 上台 and 下台 (the dealer's
side), or 未上台; the dealer; the defenders' points (闲家得分, seed
非庄家方得分); the kitty's points and multiplier; the next dealer.

The engine (:class:`paiju.games.shengji.game.Shengji`) holds the fields;
the functions take it as a :class:`ResultState`.
"""

from __future__ import annotations

from typing import Any, Protocol

from paiju.games.shengji.cards import SEATS, card_points
from paiju.games.shengji.scoring import defender_points, defenders, table_result
from paiju.rules.cards import Card
from paiju.rules.engine import Result


class ResultState(Protocol):
    """What the results read: ``decks``, ``option_dealer`` (the dealer the
    game was started with, kept by a redeal), ``dealer``, ``declarer``,
    ``trump``, ``captured`` (points per seat), ``buried`` and
    ``kitty_multiplier`` (抠底, 0: none), ``redeal``, ``escaped`` (the seat
    that escaped, else ``None``)."""

    decks: int
    option_dealer: int | None
    dealer: int | None
    declarer: int | None
    trump: str | None
    captured: list[int]
    buried: list[Card]
    kitty_multiplier: int
    redeal: bool
    escaped: int | None


def detail(g: ResultState) -> dict[str, Any]:
    """The ``detail`` keys every end has: ``trump``,
    ``dealer``, ``declarer``, ``defender_points``, ``kitty_points``,
    ``kitty_multiplier``, ``captured``, ``redeal``."""
    return {
        "trump": g.trump,
        "dealer": g.dealer,
        "declarer": g.declarer,
        "defender_points": defender_points(g.dealer, g.captured),
        "kitty_points": card_points(g.buried),
        "kitty_multiplier": g.kitty_multiplier,
        "captured": list(g.captured),
        "redeal": g.redeal,
    }


def game_result(g: ResultState) -> Result:
    """The result of a game ended without an escape: a redeal (no points; the
    next game keeps the dealer option), or the table's row for the
    defenders' points with ``next_dealer`` (seed 抢庄 / 上台) and ``up``."""
    d = detail(g)
    if g.redeal:
        d["next_dealer"] = g.option_dealer
        return Result([0] * SEATS, d, "redeal")
    assert g.dealer is not None
    points, next_dealer, up = table_result(g.decks, g.dealer, d["defender_points"])
    d["next_dealer"] = next_dealer
    d["up"] = up
    return Result(points, d)


def escape_detail(g: ResultState) -> dict[str, Any]:
    """The ``detail`` of a game ended by an escape: the deal stays (paiju
    ruling: ``next_dealer`` is the dealer)."""
    d = detail(g)
    d["next_dealer"] = g.dealer
    return d


def result_lines(g: ResultState, result: dict[str, Any]) -> list[dict[str, Any]]:
    """The settlement lines (see :meth:`paiju.rules.engine.Game.result_lines`
    and the module docstring) of a finished game whose result's detail is
    ``result``; a redeal has none."""
    dealer = g.dealer
    if dealer is None or (g.redeal and g.escaped is None):
        return []
    others = list(defenders(dealer))
    lines: list[dict[str, Any]] = []
    if g.escaped is not None:
        lines.append({"label": "逃跑", "seats": [g.escaped]})
    elif result.get("up"):
        lines += [{"label": "上台", "seats": others},
                  {"label": "下台", "seats": [dealer, (dealer + 2) % SEATS]}]
    else:
        lines.append({"label": "未上台", "seats": others})
    lines.append({"label": "庄家", "seats": [dealer]})
    lines.append({"label": "闲家得分", "value": str(defender_points(dealer, g.captured))})
    lines.append({"label": "底牌", "value": kitty_line(card_points(g.buried), g.kitty_multiplier)})
    nxt = result.get("next_dealer")
    if isinstance(nxt, int):
        lines.append({"label": "下局庄家", "seats": [nxt]})
    return lines


def kitty_line(points: int, multiplier: int) -> str:
    """The 底牌 line's value: the buried kitty's ``points`` and, after 抠底,
    its ``multiplier`` and product (``"20 分 ×4 = 80"``), else
    ``"20 分（未抠底）"``."""
    if multiplier:
        return f"{points} 分 ×{multiplier} = {points * multiplier}"
    return f"{points} 分（未抠底）"
