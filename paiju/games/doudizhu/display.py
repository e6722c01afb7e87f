"""斗地主 doudizhu: what the platform reads besides the state machine (the
engine interface's display part, :class:`paiju.rules.engine.Game`).

:class:`DoudizhuShown` is a mixin of :class:`paiju.games.doudizhu.game.Doudizhu` (the engine
sets the fields): the room-wide and own options checked without a deal, the
redeal fee after two all-``no_call`` deals (rulings.md "doudizhu"), 上一轮, and
the display: the landlord and farmers, the multiplier, the kitty face down
until the landlord takes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from paiju.games.doudizhu.deal import SEATS, parse_options
from paiju.rules.engine import Policy, Presentation


def _entry(play: tuple[int, tuple[str, ...], str]) -> dict[str, Any]:
    seat, cards, name = play
    if not cards:
        return {"seat": seat, "pass": True}
    return {"seat": seat, "cards": list(cards), "combination": name}


class DoudizhuShown:
    """The display part of the doudizhu engine (a mixin)."""

    presentation: ClassVar[Presentation] = Presentation(
        title="斗地主", partners=True,
        phase_labels={"bidding": "叫地主", "robbing": "抢地主"},
        action_labels={"call": "叫地主", "no_call": "不叫", "rob": "抢地主", "no_rob": "不抢"})
    policy: ClassVar[Policy] = Policy(redeal_fee_after=2)
    phase_after_deal: ClassVar[str] = "bidding"

    landlord: int | None
    bottom: list[str]
    multiplier: int
    bombs: int
    bids: list[dict[str, Any]]
    _sizes: list[int]
    last_trick: list[tuple[int, tuple[str, ...], str]]

    @classmethod
    def check_options(cls, options: Mapping[str, Any]) -> None:
        """As the constructor checks them (:func:`~paiju.games.doudizhu.deal.parse_options`)."""
        parse_options(options)

    def scores_view(self) -> dict[str, Any]:
        """看分 (斗地主 has no point cards): the multiplier and what made it,
        ``robs`` (抢地主, each ×2) and ``bombs`` (bombs and rockets played,
        each ×2; rulings.md "doudizhu"), and ``cards_left`` per seat."""
        return {"multiplier": self.multiplier,
                "robs": sum(1 for b in self.bids if b["kind"] == "rob"),
                "bombs": self.bombs, "cards_left": list(self._sizes)}

    def last_trick_view(self) -> dict[str, Any]:
        """上一轮: the last finished trick's plays and passes."""
        return {"last_trick": [_entry(p) for p in self.last_trick]}

    def display(self) -> dict[str, Any]:
        """The landlord (a badge, a side row) once there is one, the farmers,
        the multiplier, the kitty: three backs, then its cards shown to all."""
        rows: list[dict[str, Any]] = [{"label": "倍数", "text": f"×{self.multiplier}",
                                        "id": "multiplier"}]
        if self.landlord is None:
            return {"kitty": {"backs": len(self.bottom)}, "rows": rows}
        return {
            "kitty": {"cards": list(self.bottom)},
            "badges": [[{"text": "地主", "kind": "ll"}] if s == self.landlord
                       else [{"text": "农民", "kind": "farmer"}] for s in range(SEATS)],
            "rows": [{"label": "地主", "seat": self.landlord, "id": "landlord"}, *rows],
        }
