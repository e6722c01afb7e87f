"""混战 hunzhan: what a finished game gives (seed 000 积分 / 例外; rulings.md
"hunzhan", "Settlement"): its :class:`~paiju.rules.engine.Result`, the points
of an escape, the settlement lines the client shows and the next game's first
seat. Functions of the game's end state, read through :class:`EndState`.

The settlement lines (:func:`result_lines`):

- ``逃跑`` (seed 例外) with the escapee, when the game ended by an escape;
- ``最高分``: the seats with the most captured points and that number (seed:
  各自得分，最后进行分数比较), after a normal end;
- ``得分`` per seat: its captured points X and its points for the game, X − 60
  (seed 积分: 本局游戏得分为(X-60)), or after an escape the escape's points
  (3 × (60 − X) or 10 off the escapee; max(0, X − 60) to the others);
- ``叫主``: the declarer and the trump (a suit, or ``无主`` for a pair of jokers);
- ``下局先摸牌``: the winner of the last trick, to whom the next game is dealt
  first (seed: 上局最后一手牌最大的玩家先摸牌), after a normal end.

A redeal (nobody declared) has no lines.
"""

from __future__ import annotations

from typing import Any, Protocol

from paiju.games.hunzhan.cards import declared_trump
from paiju.games.hunzhan.deal import PAR, SEATS
from paiju.rules.cards import Card
from paiju.rules.engine import Result

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "C": "♣", "D": "♦"}


class EndState(Protocol):
    """What the results read of a game (the engine has these fields)."""

    #: the trump suit, None for no-trump (or before declaring closed)
    trump: str | None
    #: points captured per seat
    captured: list[int]
    #: the standing declaration: (seat, cards, strength) or None
    declaration: tuple[int, tuple[Card, ...], int] | None
    last_trick_winner: int | None
    #: True where declaring closed with no declaration
    redeal: bool
    #: the seat that escaped, or None
    escaped: int | None

    def result(self) -> Result:
        """The result of the finished game (raises ``wrong_phase`` before)."""
        ...


def signed(points: int) -> str:
    """``+10``, ``-15`` or ``0``: a game's points as the settlement shows them."""
    return f"{points:+d}" if points else "0"


def detail(g: EndState) -> dict[str, Any]:
    """A result's ``detail`` (records.md): ``trump``, ``captured``,
    ``last_trick_winner``, ``redeal`` and ``declarer`` (a seat or None)."""
    return {
        "trump": g.trump,
        "captured": list(g.captured),
        "last_trick_winner": g.last_trick_winner,
        "redeal": g.redeal,
        "declarer": None if g.declaration is None else g.declaration[0],
    }


def normal_result(g: EndState) -> Result:
    """The result of a game that ended without an escape: ``points`` =
    captured − 60 per seat (seed 000 积分), or all 0 with kind ``redeal``."""
    if g.redeal:
        return Result([0] * SEATS, detail(g), "redeal")
    return Result([c - PAR for c in g.captured], detail(g))


def escape_points(captured: list[int], seat: int) -> list[int]:
    """Escape (seed 000 例外; rulings.md "Settlement"): the escapee gets
    −3 × (60 − X) for X < 60, −10 for X ≥ 60 (X = its ``captured`` points so
    far); each other seat max(0, captured − 60). They do not sum to zero."""
    out = [max(0, c - PAR) for c in captured]
    x = captured[seat]
    out[seat] = -3 * (PAR - x) if x < PAR else -10
    return out


def carry_over(g: EndState) -> dict[str, Any]:
    """``{"first": the last trick's winner}``: dealt to first next game (seed
    000); ``{}`` where no trick was won."""
    return {} if g.last_trick_winner is None else {"first": g.last_trick_winner}


def result_lines(g: EndState) -> list[dict[str, Any]]:
    """The settlement lines (see :meth:`paiju.rules.engine.Game.result_lines`
    and the module docstring), e.g. ``[{"label": "最高分", "value": "70 分",
    "seats": [1]}, {"label": "得分", "value": "70 分（+10）", "seats": [1]},
    …]``. Raises ``wrong_phase`` before the game has finished."""
    points = g.result().points
    if g.redeal and g.escaped is None:
        return []
    lines: list[dict[str, Any]] = []
    if g.escaped is not None:
        lines.append({"label": "逃跑", "seats": [g.escaped]})
    else:
        best = max(g.captured)
        lines.append({"label": "最高分", "value": f"{best} 分",
                      "seats": [s for s in range(SEATS) if g.captured[s] == best]})
    lines += [{"label": "得分", "value": f"{g.captured[s]} 分（{signed(points[s])}）",
               "seats": [s]} for s in range(SEATS)]
    if g.declaration is not None:  # the standing one (an escape may end declaring)
        seat, cards, _ = g.declaration
        trump = declared_trump(cards)  # a ten's suit; jokers: 无主
        lines.append({"label": "叫主", "value": SUIT_SYMBOLS[trump] if trump else "无主",
                      "seats": [seat]})
    if g.escaped is None and g.last_trick_winner is not None:
        lines.append({"label": "下局先摸牌", "seats": [g.last_trick_winner]})
    return lines
