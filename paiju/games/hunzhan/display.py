"""混战 hunzhan: what the platform reads besides the state machine (the
engine interface's display part, :class:`paiju.rules.engine.Game`).

:class:`HunzhanShown` is a mixin of :class:`paiju.games.hunzhan.game.Hunzhan` (the engine
sets the fields): options checked without a deal, the points unit (5, the
seed's 最小单位), the next game's first seat (the last trick's winner, seed
000), 看分, 上一轮, and the display: trump, captured points.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from paiju.games.hunzhan.cards import declared_trump
from paiju.games.hunzhan.deal import SEATS, parse_options
from paiju.rules.cards import Card
from paiju.rules.engine import Policy, Presentation


class HunzhanShown:
    """The display part of the hunzhan engine (a mixin)."""

    presentation: ClassVar[Presentation] = Presentation(title="混战")
    policy: ClassVar[Policy] = Policy(points_unit=5)
    phase_after_deal: ClassVar[str] = "declaring"

    _phase: str
    trump: str | None
    declaration: tuple[int, tuple[Card, ...], int] | None
    captured: list[int]
    captured_cards: list[list[Card]]
    last_trick: dict[str, Any] | None
    last_trick_winner: int | None
    escaped: int | None

    @classmethod
    def check_options(cls, options: Mapping[str, Any]) -> None:
        """As the constructor checks them (:func:`~paiju.games.hunzhan.deal.parse_options`)."""
        parse_options(options)

    def carry_over(self) -> dict[str, Any]:
        """``{"first": the last trick's winner}``: dealt to first next game (seed 000)."""
        return {} if self.last_trick_winner is None else {"first": self.last_trick_winner}

    def scores_view(self) -> dict[str, Any]:
        """看分: per seat the captured points and the point cards that made
        them (seed 000 第二节 看分; these cards were played openly)."""
        return {"captured": list(self.captured), "scores": self.scores_detail()}

    def scores_detail(self) -> list[dict[str, Any]]:
        """看分: per seat ``{"points": captured points, "cards": the point cards
        that made them}`` (seed 000 第二节 看分; these cards were played openly)."""
        return [{"points": self.captured[s], "cards": list(self.captured_cards[s])}
                for s in range(SEATS)]

    def last_trick_view(self) -> dict[str, Any]:
        """上一轮: the last trick and its winner."""
        return {"last_trick": self.last_trick, "last_trick_winner": self.last_trick_winner}

    def display(self) -> dict[str, Any]:
        """The trump from the first declaration on (while the window is open,
        the standing declaration's: a ten's suit, a pair of jokers 无主; seed
        000 叫主), else in play 无主; captured points."""
        out: dict[str, Any] = {"points": list(self.captured)}
        if self._phase == "play" or self.declaration is not None:
            suit = (declared_trump(self.declaration[1]) if self.declaration is not None
                    else self.trump)
            out["trump"] = {"label": "当前主", "suit": suit, "rank": "",
                            "text": "" if suit else "无主"}
        return out
