"""大A daa: what the platform reads besides the state machine (the engine
interface's display part, :class:`paiju.rules.engine.Game`).

:class:`DaaShown` is a mixin of :class:`paiju.games.daa.game.Daa` (the engine sets the
fields): options checked without a deal, the words of its declaring phase
(亮大A, no 无主), 上一轮, and the display: the big A's suit, each seat's place
out and who revealed itself (亮明).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from paiju.games.daa.deal import SEATS, parse_options
from paiju.rules.engine import Presentation


class DaaShown:
    """The display part of the daa engine (a mixin)."""

    presentation: ClassVar[Presentation] = Presentation(
        title="大A", phase_labels={"declaring": "亮大A"}, declare_label="亮大A",
        no_trump_declare=False, partners=True)
    phase_after_deal: ClassVar[str] = "declaring"

    declared_suit: str | None
    counter_suit: str | None
    big_suit: str | None
    named: bool
    second: int | None
    finish_order: list[int]
    last_trick: list[dict[str, Any]]

    @classmethod
    def check_options(cls, options: Mapping[str, Any]) -> None:
        """As the constructor checks them: the room-wide ones only."""
        parse_options(options)

    def last_trick_view(self) -> dict[str, Any]:
        """上一轮: the last finished trick's plays and passes."""
        return {"last_trick": [dict(p) for p in self.last_trick]}

    def display(self) -> dict[str, Any]:
        """The big A (its suit, once declared or settled), each seat's place
        out (第N名) and the revealed 次方 (亮明)."""
        suit = self.big_suit if self.big_suit is not None else (
            self.counter_suit or self.declared_suit)
        revealed = self.second if self.named else None
        places = {s: i + 1 for i, s in enumerate(self.finish_order)}
        badges = [[*([{"text": f"第{places[s]}名", "kind": "plain"}] if s in places else []),
                   *([{"text": "亮明", "kind": "plain"}] if s == revealed else [])]
                  for s in range(SEATS)]
        out: dict[str, Any] = {"badges": badges}
        if suit is not None:
            out["trump"] = {"label": "大A", "suit": suit, "rank": "A", "text": ""}
        return out
