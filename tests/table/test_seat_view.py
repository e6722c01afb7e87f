"""A seat's decision inputs (``Sitting.seat_view``, the gateway's
``seat_view``): its view, its legal actions, the record so far as its seat
saw it (升级's buried kitty only to the burier, records.md), never the deal."""

from __future__ import annotations

import random

import pytest

from paiju.rules import load
from services.table.domain.entries import Created
from services.table.domain.options import TableOptions
from services.table.domain.outgoing import GameError, Seat, ms
from services.table.domain.sitting import Sitting, spec_json
from services.table.domain.spec import GameSpec, Terms

T0 = 1_700_000_000.0
SEATS = {"doudizhu": 3, "shengji": 4}


def sitting(game: str, seed: int) -> Sitting:
    """A started sitting of ``game`` dealt at once (players s0, s1, …)."""
    spec = GameSpec("g1", "r1", "s1", game, {},
                    TableOptions(turn_seconds=20.0, deal_interval_ms=0),
                    tuple(Seat(i, f"s{i}", f"s{i}") for i in range(SEATS[game])), Terms())
    deal = load(game).random_deal({}, random.Random(seed))
    game_ = Sitting(Created(ms(T0), spec_json(spec), deal, []))
    game_.first()
    return game_


def declarer(game: Sitting) -> str | None:
    """In a declaring window where nobody declared yet, the first player who can."""
    if any(a["type"] == "declare" for a in game.actions):
        return None
    return next((s.player for s in game.seats
                 if any(a.type == "declare" for a in game.hints(s.player))), None)


def play_until(game: Sitting, action_type: str, after: int = 0) -> float:
    """Play the first legal action of whoever acts (in a declaring window the
    first seat that can declares once; timers fire when nobody acts) until
    ``after`` actions past the first ``action_type``; returns the clock."""
    now, seq, past = T0, 0, None
    while not game.finished and (past is None or len(game.actions) < past + after):
        seats = game.engine.to_act()
        player = game.player_of(seats[0]) if seats else declarer(game)
        if player is None:
            deadline = game.next_deadline()
            assert deadline is not None, "a declaring window has its timer"
            now = max(now, deadline)
            game.on_time(now)
            continue
        action = game.hints(player)[0]
        now += 1
        seq += 1
        answer, _ = game.act(player, action.type, list(action.cards), seq, now)
        assert answer.ok, answer
        if past is None and action.type == action_type:
            past = len(game.actions)
    return now


def test_the_burier_alone_sees_its_buried_cards() -> None:
    game = sitting("shengji", 5)
    now = play_until(game, "bury", after=2)
    bury = next(a for a in game.actions if a["type"] == "bury")
    burier = bury["seat"]
    assert len(bury["cards"]) == 8  # 升级's kitty: 8 cards (seed 升级 §扣底)
    for seat in range(4):
        inputs = game.seat_view(f"s{seat}", now)
        history = inputs["history"]
        assert len(history) == len(game.actions)
        seen = next(a for a in history if a["type"] == "bury")
        if seat == burier:
            assert seen == bury
        else:
            assert seen == {"seat": burier, "type": "bury"}
        # every other action as the record has it
        assert [a for a in history if a["type"] != "bury"] == \
               [a for a in game.actions if a["type"] != "bury"]
        assert "deal" not in inputs and "deal" not in inputs["view"]
        assert inputs["view"]["seat"] == seat
        assert inputs["options"] == game.engine_options


def test_legal_actions_are_the_seat_to_acts_and_nobody_elses() -> None:
    game = sitting("doudizhu", 3)
    to_act = game.engine.to_act()[0]
    for seat in range(3):
        legal = game.seat_view(f"s{seat}", T0)["legal"]
        if seat == to_act:
            # 叫地主 opens the game: call or pass (seed 斗地主 §叫地主)
            assert legal and {a["seat"] for a in legal} == {seat}
            assert {a["type"] for a in legal} == {a.type for a in game.hints(f"s{seat}")}
        else:
            assert legal == []


def test_a_player_not_at_the_game_is_refused() -> None:
    game = sitting("doudizhu", 3)
    with pytest.raises(GameError) as e:
        game.seat_view("stranger", T0)
    assert e.value.code == "not_seated"
