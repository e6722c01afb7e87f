"""斗地主 doudizhu: the end, spring and points (seed 002 春天 / 反春, 结算;
rulings.md "doudizhu", "Settlement").

:class:`Scoring` is a mixin of :class:`paiju.games.doudizhu.game.Doudizhu`: the
first seat out of cards wins for its side; spring (春天: no farmer played) and
anti-spring (反春: the landlord played only its lead) double the multiplier
(option ``spring_doubles``); the landlord wins or loses 2 × multiplier, each
farmer 1 ×; an escapee pays each other seat ``escape_points`` or the
multiplier (doubled for the landlord).
"""

from __future__ import annotations

from typing import Any

from paiju.games.doudizhu.deal import SEATS
from paiju.rules.engine import Result


class Scoring:
    """The end and the points (a mixin: the engine sets the fields)."""

    _phase: str
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

    def _finish(self, winner: int) -> None:
        """``winner`` went out: the game ends; spring or anti-spring is marked (and
        doubles the multiplier where ``spring_doubles``)."""
        self.winner = winner
        self._phase = "finished"
        landlord = self.landlord
        assert landlord is not None
        if winner == landlord:
            spring = all(self.plays_by[s] == 0 for s in range(SEATS) if s != landlord)
        else:
            spring = self.plays_by[landlord] == 1  # anti-spring 反春
        self.spring = spring
        if spring and self.spring_doubles:
            self.multiplier *= 2

    def _detail(self) -> dict[str, Any]:
        return {
            "landlord": self.landlord,
            "multiplier": self.multiplier,
            "bombs": self.bombs,
            "spring": self.spring,
            "redeal": self.redeal,
        }

    def _result(self) -> Result:
        detail = self._detail()
        if self.redeal:
            return Result([0, 0, 0], detail, "redeal")
        landlord, m = self.landlord, self.multiplier
        assert landlord is not None and self.winner is not None
        sign = 1 if self.winner == landlord else -1
        points = [2 * m * sign if s == landlord else -m * sign for s in range(SEATS)]
        detail["winner"] = self.winner
        detail["spring_kind"] = (
            None if not self.spring else "spring" if sign == 1 else "anti_spring"
        )
        return Result(points, detail)

    def escape_points(self, seat: int) -> list[int]:
        """``seat`` pays each other seat the option ``escape_points`` or, by default,
        the multiplier so far, doubled when ``seat`` is the landlord (rulings.md
        "Settlement": a farmer escaping at multiplier 4 gives −8, +4, +4)."""
        each = self.options["escape_points"]
        if each is None:
            each = self.multiplier * (2 if seat == self.landlord else 1)
        return [-each * (SEATS - 1) if s == seat else each for s in range(SEATS)]

    def _result_detail_on_escape(self) -> dict[str, Any]:
        detail = self._detail()
        detail["escapee"] = self.escaped
        return detail
