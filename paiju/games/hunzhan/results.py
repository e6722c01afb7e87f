"""混战 (hunzhan): what the client shows, computed by the server.

:class:`HunzhanResults` is a mixin of :class:`paiju.games.hunzhan.game.Hunzhan`;
:meth:`HunzhanResults.result_lines` gives the settlement lines from seed 000 and
rulings.md "hunzhan" / "Settlement":

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

from typing import Any

from paiju.games.hunzhan.deal import SEATS
from paiju.rules.cards import Card
from paiju.rules.engine import Game

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "C": "♣", "D": "♦"}


def signed(points: int) -> str:
    """``+10``, ``-15`` or ``0``: a game's points as the settlement shows them."""
    return f"{points:+d}" if points else "0"


class HunzhanResults(Game):
    """The settlement lines of a hunzhan game (a part of the engine, abstract:
    the engine sets the fields)."""

    captured: list[int]
    declaration: tuple[int, tuple[Card, ...], int] | None
    last_trick_winner: int | None
    redeal: bool
    escaped: int | None

    def result_lines(self) -> list[dict[str, Any]]:
        """The settlement lines (see :meth:`paiju.rules.engine.Game.result_lines`
        and the module docstring), e.g. ``[{"label": "最高分", "value": "70 分",
        "seats": [1]}, {"label": "得分", "value": "70 分（+10）", "seats": [1]},
        …]``. Raises ``wrong_phase`` before the game has finished."""
        points = self.result().points
        if self.redeal and self.escaped is None:
            return []
        lines: list[dict[str, Any]] = []
        if self.escaped is not None:
            lines.append({"label": "逃跑", "seats": [self.escaped]})
        else:
            best = max(self.captured)
            lines.append({"label": "最高分", "value": f"{best} 分",
                          "seats": [s for s in range(SEATS) if self.captured[s] == best]})
        lines += [{"label": "得分", "value": f"{self.captured[s]} 分（{signed(points[s])}）",
                   "seats": [s]} for s in range(SEATS)]
        if self.declaration is not None:  # the standing one (an escape may end declaring)
            seat, cards, _ = self.declaration
            trump = cards[0][1] if cards[0][0] == "T" else None  # a ten's suit; jokers: 无主
            lines.append({"label": "叫主", "value": SUIT_SYMBOLS[trump] if trump else "无主",
                          "seats": [seat]})
        if self.escaped is None and self.last_trick_winner is not None:
            lines.append({"label": "下局先摸牌", "seats": [self.last_trick_winner]})
        return lines
