"""Review tests shared by every engine (second pair of eyes on the seeds and
records.md). Expectations written by hand from shared/spec/records.md."""

from __future__ import annotations

import random

import pytest

from paiju.rules import load
from paiju.rules.engine import Action, Game
from paiju.rules.errors import RulesError
from paiju.rules.selfplay import random_step
from paiju.tools.replay import replay

GAMES_WITH_DECLARING = ["hunzhan", "shengji", "daa"]


@pytest.mark.parametrize("name", GAMES_WITH_DECLARING)
@pytest.mark.parametrize("seat", [0, 4, 7, -1])
def test_end_declare_with_a_seat_is_refused(name: str, seat: int) -> None:
    """records.md, action table: ``end_declare`` is sent by the system with seat
    ``null``. A record whose ``end_declare`` names a seat (in range or not) is
    refused with ``malformed_action`` and changes nothing; the replay goes on
    (it used to close the window in shengji/daa, and to crash with an
    IndexError for a seat beyond the table)."""
    deal = load(name).random_deal({}, random.Random(5))
    record = {
        "game": name,
        "options": {},
        "deal": deal,
        "actions": [
            {"seat": seat, "type": "end_declare"},
            {"seat": None, "type": "end_declare"},
        ],
    }
    out = replay(record)
    assert out["actions"][0]["ok"] is False
    assert out["actions"][0]["error"] == "malformed_action"
    assert out["actions"][1]["ok"] is True


def _to_play(name: str, seed: int) -> tuple[Game, random.Random]:
    """A game of ``name`` advanced by random legal steps until a seat is to act
    in the play phase (a redeal: the next seed)."""
    rng = random.Random(seed)
    while True:
        game = load(name)({}, load(name).random_deal({}, rng))
        while not game.finished and not (game.phase == "play" and game.to_act()):
            game.apply(random_step(game, rng, 1.0))
        if not game.finished:
            return game, rng


@pytest.mark.parametrize("name", ["doudizhu", "hunzhan", "shengji", "daa"])
def test_own_action_resets_the_timeout_count(name: str) -> None:
    """rulings.md "Shared by all games": the 4th consecutive ``timeout`` of a
    seat is its escape; any action of the seat's own resets its count, the
    engines' fast path for plays included. A refused play changes nothing."""
    game, rng = _to_play(name, 3)
    seat = game.to_act()[0]
    game.apply(Action(seat, "timeout"))
    assert game.timeouts[seat] == 1
    while not game.finished and game.to_act() != [seat]:
        game.apply(random_step(game, rng, 1.0))
    assert not game.finished, "seed 3 reaches the seat's next turn in every game"
    before = list(game.timeouts)
    with pytest.raises(RulesError):
        game.apply(Action(seat, "play", ()))  # no cards: refused by every game
    assert game.timeouts == before
    own = next(a for a in game.legal_actions(seat) if a.type in ("play", "pass"))
    game.apply(own)
    assert game.timeouts[seat] == 0
