"""``paiju ai``'s choices before it plays: the level, the decision inputs
read from a ``seat_view`` reply, the action sent back (pure, no I/O)."""

from __future__ import annotations

import importlib.util

import pytest
from typer.testing import CliRunner

from paiju.cli import app
from paiju.rules.engine import Action
from paiju.tools.ai_worker import as_command, level_of, seat_view_of


@pytest.mark.parametrize("game", ["doudizhu", "hunzhan", "shengji", "daa"])
def test_normal_is_played_where_the_game_has_it_else_random(game: str) -> None:
    has_ai = importlib.util.find_spec(f"paiju.games.{game}.ai") is not None
    chosen = level_of(game, "normal")
    assert chosen in ("normal", "random")
    if not has_ai:
        assert chosen == "random"
    assert level_of(game, "random") == "random"
    with pytest.raises(KeyError):
        level_of(game, "grandmaster")


def test_a_seat_view_reply_reads_as_the_seats_decision_inputs() -> None:
    reply = {"view": {"seat": 1, "to_act": [1], "hand": ["3S", "3H"]},
             "legal": [{"seat": 1, "type": "play", "cards": ["3S"]}, {"seat": 1, "type": "pass"}],
             "history": [{"seat": 0, "type": "bury"}, {"seat": None, "type": "end_declare"}],
             "options": {"decks": 2}}
    sv = seat_view_of("shengji", 1, reply)
    assert sv.my_turn and sv.options == {"decks": 2}
    assert sv.legal == (Action(1, "play", ("3S",)), Action(1, "pass"))
    assert sv.history == (Action(0, "bury"), Action(None, "end_declare"))
    assert as_command(sv.legal[0]) == {"type": "play", "cards": ["3S"]}
    assert as_command(sv.legal[1]) == {"type": "pass"}


def test_the_command_refuses_an_unknown_level_or_game_before_it_starts() -> None:
    runner = CliRunner()
    bad = runner.invoke(app, ["ai", "--game", "doudizhu", "--level", "grandmaster"])
    assert bad.exit_code == 2 and "grandmaster" in bad.output
    assert runner.invoke(app, ["ai", "--game", "chess"]).exit_code == 2
