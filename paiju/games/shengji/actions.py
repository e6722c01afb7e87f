"""升级 (shengji) fast paths: play actions and events built for the hot loop.

No rule lives here (the rules: :mod:`paiju.games.shengji.play` and the seed
shared/seeds/004_87bdd40096bb5c2e.txt, 牌型 / 发牌 / 跟牌). Actions are
immutable, so the plays of one to four identical cards (seed 牌型: 单牌, 对牌,
三张牌, 四张牌) are made once per seat at import and shared; other plays
(follows of mixed cards) come from a bounded per-seat cache. New actions and
events are filled slot by slot through :mod:`paiju.rules.fastbuild` instead of
the frozen dataclasses' ``__init__``; they compare and hash like those
(tests/rules/test_shengji_engine.py).
"""

from __future__ import annotations

from paiju.games.shengji.cards import DECK1, SEATS
from paiju.rules import fastbuild
from paiju.rules.cards import Card
from paiju.rules.engine import Action

#: ``event(type, data, to)`` is ``Event(type, data, to)``.
event = fastbuild.event
#: ``play_action(seat, cards)`` is ``Action(seat, "play", cards)``.
play_action = fastbuild.play_action


def _group_actions(seat: int) -> dict[Card, tuple[Action, ...]]:
    """``card → (Action(seat, "play", (card,) * n) for n in 1..4)``."""
    return {c: tuple(Action(seat, "play", (c,) * n) for n in range(1, 5)) for c in DECK1}


#: The plays of one, two, three or four identical cards, made once per seat
#: and shared (``GROUPS[seat][card][n - 1]``).
GROUPS: list[dict[Card, tuple[Action, ...]]] = [_group_actions(s) for s in range(SEATS)]
#: The single plays, ``SINGLES[seat][card]``.
SINGLES: list[dict[Card, Action]] = [{c: g[0] for c, g in gs.items()} for gs in GROUPS]
#: The leads of a card held ``k`` times (k <= 4): ``LEADS[seat][card][k]``.
LEADS: list[dict[Card, tuple[tuple[Action, ...], ...]]] = [
    {c: tuple(g[:k] for k in range(5)) for c, g in gs.items()} for gs in GROUPS
]
#: Other plays made so far, per seat (cleared when it grows past
#: ``_PLAY_CACHE_SIZE``; lists longer than that are made afresh).
_PLAY_CACHE: list[dict[tuple[Card, ...], Action]] = [{} for _ in range(SEATS)]
_PLAY_CACHE_SIZE = 20_000


def play_actions(seat: int, plays: list[tuple[Card, ...]]) -> list[Action]:
    """``[Action(seat, "play", t) for t in plays]``, reusing equal actions."""
    make = play_action
    if len(plays) > _PLAY_CACHE_SIZE:
        return [make(seat, t) for t in plays]
    cache = _PLAY_CACHE[seat]
    if len(cache) > _PLAY_CACHE_SIZE:
        cache.clear()
    get, put = cache.get, cache.setdefault
    return [get(t) or put(t, make(seat, t)) for t in plays]
