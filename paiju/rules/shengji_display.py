"""升级 (shengji): what the client shows (issue 21), computed by the server.

- :func:`in_hand_order`: a hand as players hold it: the trumps together
  (seed 主牌: 大王, 小王, 5s, 3s, 2s, then the trump suit, in the seed's 牌的大小
  order, high to low; equal cards of other suits by 黑 红 梅 方), then each
  side suit together (♠ ♥ ♣ ♦, the trump suit left out), high to low. Before
  the trump is fixed the trumps are the jokers, 5s, 3s and 2s.
- :class:`Display` (a mixin of :class:`paiju.rules.shengji.Shengji`):
  :meth:`Display.scores_detail`, 看分's point cards (分牌) per seat;
  :meth:`Display.result_lines`, the settlement lines: 上台 (the defenders go
  up, seed 上台) and 下台 (the dealer's side), or 未上台; the dealer; the
  defenders' points (闲家得分, seed 非庄家方得分); the kitty's points and
  multiplier (seed 抠底 ×2 / 4 / 6 / 8); the next dealer (seed 抢庄 / 上台).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from paiju.rules.cards import Card
from paiju.rules.shengji_cards import SEATS, SUIT_TIE, card_points, card_power, is_trump
from paiju.rules.shengji_scoring import defenders

if TYPE_CHECKING:
    from paiju.rules.engine import Result

#: Side suits in hand order (black, red, black, red).
SUIT_GROUPS = {"S": 1, "H": 2, "C": 3, "D": 4}

_KEYS: dict[str, dict[Card, int]] = {}


def hand_order_keys(trump: str) -> dict[Card, int]:
    """Per card, its place in :func:`in_hand_order` for ``trump`` (a suit
    letter, or ``""`` before the trump is fixed): smaller comes first."""
    keys = _KEYS.get(trump)
    if keys is None:
        keys = {}
        for r in "23456789TJQKA":
            for s in "SHCD":
                keys[r + s] = _key(r + s, trump)
        for c in ("BJ", "SJ"):
            keys[c] = _key(c, trump)
        _KEYS[trump] = keys
    return keys


def _key(card: Card, trump: str) -> int:
    power = card_power(card, trump)
    if is_trump(card, trump):  # group 0, strongest first, then 黑 红 梅 方
        return -(power * 4 + SUIT_TIE[card[1]]) - 1000
    return SUIT_GROUPS[card[1]] * 100 - power


def in_hand_order(cards: Iterable[Card], trump: str) -> list[Card]:
    """``cards`` in the order players hold them (module docstring)."""
    return sorted(cards, key=hand_order_keys(trump).__getitem__)


class Display:
    """The settlement lines of a shengji game (a mixin: the engine sets the fields)."""

    dealer: int | None
    decks: int
    buried: list[Card]
    kitty_multiplier: int
    redeal: bool
    escaped: int | None
    captured: list[int]
    captured_cards: list[list[Card]]

    if TYPE_CHECKING:
        def result(self) -> Result: ...  # paiju.rules.engine.Game
        def defender_points(self) -> int: ...  # paiju.rules.shengji_state

    def scores_detail(self) -> list[dict[str, Any]]:
        """看分 (seed 000 看分, seed 004 分牌): per seat ``{"points": captured
        points, "cards": the point cards (5, 10, K) of the tricks it won, in
        playing order}``: cards played openly only, so the buried kitty's
        points of 抠底 count in ``points`` (and 闲家得分) but its cards, which
        nobody but the dealer saw, are not listed. A game made by
        ``from_position`` lists the cards it was given with its points
        (``captured_cards``), none by default."""
        return [{"points": self.captured[s], "cards": list(self.captured_cards[s])}
                for s in range(SEATS)]

    def result_lines(self) -> list[dict[str, Any]]:
        """The settlement lines (see :meth:`paiju.rules.engine.Game.result_lines`
        and the module docstring); a redeal has none."""
        detail = self.result().detail
        dealer = self.dealer
        if dealer is None or (self.redeal and self.escaped is None):
            return []
        side = [dealer, (dealer + 2) % SEATS]
        others = list(defenders(dealer))
        lines: list[dict[str, Any]] = []
        if self.escaped is not None:
            lines.append({"label": "逃跑", "seats": [self.escaped]})
        elif detail.get("up"):
            lines += [{"label": "上台", "seats": others}, {"label": "下台", "seats": side}]
        else:
            lines.append({"label": "未上台", "seats": others})
        lines.append({"label": "庄家", "seats": [dealer]})
        lines.append({"label": "闲家得分", "value": str(self.defender_points())})
        kitty = card_points(self.buried)
        if self.kitty_multiplier:
            lines.append({"label": "底牌", "value":
                          f"{kitty} 分 ×{self.kitty_multiplier} = {kitty * self.kitty_multiplier}"})
        else:
            lines.append({"label": "底牌", "value": f"{kitty} 分（未抠底）"})
        nxt = detail.get("next_dealer")
        if isinstance(nxt, int):
            lines.append({"label": "下局庄家", "seats": [nxt]})
        return lines
