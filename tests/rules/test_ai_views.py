"""Every game's AI levels decide from their seat's view only.

For each game and each level of ``paiju.rules.ai.levels``: a full game with
that level at every seat, capturing every SeatView a player is given. Each
capture must be plain data (no Game object reaches ``decide``: the view
serialises to JSON, and nothing in the SeatView is a Game), and must hold no
card the seat cannot know: checked against the real game replayed to that
moment, a card of which no copy is in the seat's hand, face up out of a hand
(``played_cards``), shown going into a hand (``shown_held``: 斗地主's kitty),
set aside under the seat's eyes (``set_aside_seen``), in an action all seats
saw (a declaration; not another seat's ``bury``), in the public display or
beside the hand in every seat's view (升级's ``kitty_shown``),
appears nowhere in the SeatView (other seats' hands, a hidden kitty, cards not
yet dealt). For 斗地主 the kitty is in the view exactly once it is public.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from paiju.rules import ENGINES, load
from paiju.rules.ai import PRIVATE_ACTIONS, SeatView, levels, make_player, play_game
from paiju.rules.engine import Action, Game
from tests.rules.ai_support import Capture


def strings(obj: Any) -> Iterator[str]:
    """Every string leaf of plain data."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from strings(k)
            yield from strings(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from strings(v)


def contains_game(obj: Any) -> bool:
    if isinstance(obj, Game):
        return True
    if isinstance(obj, dict):
        return any(contains_game(v) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return any(contains_game(v) for v in obj)
    return False


def cases() -> list[Any]:
    out = []
    for game in sorted(ENGINES):
        for level in levels(game):
            marks = [pytest.mark.slow] if level == "hard" else []
            out.append(pytest.param(game, level, marks=marks, id=f"{game}-{level}"))
    return out


def unknown_cards(real: Game, seat: int, history: list[Action]) -> set[str]:
    """Card strings of which ``seat`` can know no copy in ``real`` after
    ``history`` (the real actions; the cards of every action but another
    seat's private one, e.g. a 亮主 declaration, were seen by all)."""
    known = set(real.view(seat)["hand"]) | set(real.played_cards())
    known |= {c for a in history if a.type not in PRIVATE_ACTIONS or a.seat == seat
              for c in a.cards}
    known |= {c for held in real.shown_held() for c in held}
    known |= set(real.set_aside_seen(seat))
    known |= set(strings(real.display()))
    # what every seat's view shows beside its hand is public (升级's kitty_shown)
    views = [{k: v for k, v in real.view(s).items() if k != "hand"} for s in range(real.seats)]
    known |= set.intersection(*(set(strings(v)) for v in views))
    return set(real.deck_cards()) - known


@pytest.mark.timeout(900)
@pytest.mark.parametrize(("game", "level"), cases())
def test_the_ai_sees_only_its_seats_view(game: str, level: str) -> None:
    engine = load(game)
    deal = engine.random_deal({}, random.Random(7))
    assert engine({}, deal).deck_cards(), f"{game} lists no deck"
    seen: list[SeatView] = []
    players = [Capture(make_player(game, level, random.Random(s)), seen)
               for s in range(engine.seats)]
    _, history = play_game(game, {}, deal, players)
    assert seen
    real = engine({}, deal)
    applied = 0
    checked_hidden = 0
    for sv in sorted(seen, key=lambda v: len(v.history)):
        while applied < len(sv.history):
            real.apply(history[applied])
            applied += 1
        assert type(sv) is SeatView
        assert not contains_game([sv.view, sv.legal, sv.history, dict(sv.options)])
        json.dumps(sv.view)  # plain data only
        assert sv.view["hand"] == real.view(sv.seat)["hand"]
        hidden = unknown_cards(real, sv.seat, history[:applied])
        checked_hidden += len(hidden)
        shown = set(strings(sv.view)) | {c for a in sv.legal for c in a.cards}
        shown |= {c for a in sv.history for c in a.cards}
        assert not shown & hidden, (sv.seat, sorted(shown & hidden))
        if game == "doudizhu":
            kitty = sv.view["kitty"]
            assert kitty == (None if sv.view["landlord"] is None else deal["bottom"])
            if kitty is None:  # the hidden kitty nowhere, not even in every seat's view
                assert not shown & set(deal["bottom"])
    assert checked_hidden > 0
