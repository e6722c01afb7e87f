"""升级 shengji: what the platform reads besides the state machine (the
engine interface's display part, :class:`paiju.rules.engine.Game`).

:class:`ShengjiShown` sits between the state and the play of the engine
(:class:`paiju.games.shengji.game.Shengji`): options checked without a deal, the
points unit, the next game's dealer (seed 抢庄 / 上台), 看分 (captured points and
the defenders' total), 上一轮, and the display: trump, the dealer's badge, the
captured points, the kitty shown while the dealer buries.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from paiju.games.shengji.deal import parse_options
from paiju.games.shengji.state import ShengjiState
from paiju.rules.engine import Policy, Presentation

SUITS = "SHCD"


class ShengjiShown(ShengjiState):
    """The display part of the shengji engine."""

    presentation: ClassVar[Presentation] = Presentation(
        title="升级", own_kitty_shown=True, partners=True)
    policy: ClassVar[Policy] = Policy(carried_options=("dealer",))
    phase_after_deal: ClassVar[str] = "declaring"
    phase_after_declaring: ClassVar[str] = "burying"

    @classmethod
    def check_options(cls, options: Mapping[str, Any]) -> None:
        """As the constructor checks them (``decks`` 1..4, …;
        :func:`~paiju.games.shengji.deal.parse_options`)."""
        parse_options(options)

    def carry_over(self) -> dict[str, Any]:
        """``{"dealer": next dealer}`` (seed 抢庄 / 上台; an escape keeps the deal)."""
        nxt = self.result().detail.get("next_dealer")
        return {} if nxt is None else {"dealer": nxt}

    def scores_view(self) -> dict[str, Any]:
        """看分: captured points per seat, the defenders' total and each seat's
        point cards (:meth:`scores_detail`)."""
        return {"captured": list(self.captured), "defender_points": self.defender_points(),
                "scores": self.scores_detail()}

    def scores_detail(self) -> list[dict[str, Any]]:
        """看分 (seed 000 看分, seed 004 分牌): per seat ``{"points": captured
        points, "cards": the point cards (5, 10, K) of the tricks it won, in
        playing order}``: cards played openly only, so the buried kitty's
        points of 抠底 count in ``points`` (and 闲家得分) but its cards, which
        nobody but the dealer saw, are not listed. A game made by
        ``from_position`` lists the cards it was given with its points
        (``captured_cards``), none by default."""
        return [{"points": self.captured[s], "cards": list(self.captured_cards[s])}
                for s in range(self.seats)]

    def last_trick_view(self) -> dict[str, Any]:
        """上一轮: ``{"plays": [{seat, cards}], "winner"}``."""
        return {"last_trick": {
            "plays": [{"seat": s, "cards": list(c)} for s, c in self.last_trick],
            "winner": self.last_winner}}

    def display(self) -> dict[str, Any]:
        """Trump once declared (no suit: 无主; ``note``: the 5s, 3s, 2s and
        jokers are trumps always, seed 004 主牌), the dealer (庄), captured
        points, the kitty while the dealer buries it."""
        out: dict[str, Any] = {
            "points": list(self.captured),
            "badges": [[{"text": "庄", "kind": "ll"}] if s == self.dealer else []
                       for s in range(self.seats)],
        }
        if self.trump is not None:
            suit = self.trump if self.trump in SUITS else None
            # seed 004 主牌: 大王和小王、5、3、2、主花色牌 — the 5s, 3s and 2s of
            # every suit are trumps whatever the suit declared
            out["trump"] = {"label": "当前主", "suit": suit, "rank": "",
                            "text": "" if suit else "无主", "note": "5、3、2 与大小王常主"}
        if self._phase == "burying":
            out["kitty"] = {"cards": list(self.kitty)}
        return out
