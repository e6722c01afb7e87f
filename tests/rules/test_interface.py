"""The engine interface the platform reads instead of a game's name:
every registered engine, and the test-only fifth game, answer it the same way.

Expected values come from the rulings (rulings.md "Shared by all games",
"Settlement", each game's section) and the issue, not from the engines.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from paiju.rules import ENGINES, Action, Event, Game, RulesError, load
from paiju.rules.registry import discover, module_games
from paiju.rules.selfplay import play_random
from tests.games.duel import Duel

BUILT_IN = {"doudizhu", "hunzhan", "shengji", "daa"}


def engines() -> list[type[Game]]:
    """The built-in four and the fifth (test-only) game."""
    return [*(load(name) for name in sorted(BUILT_IN)), Duel]


def new(cls: type[Game], options: dict[str, Any] | None = None, seed: int = 1) -> Game:
    return cls(options or {}, cls.random_deal({}, random.Random(seed)))


def test_the_four_register_through_the_entry_points() -> None:
    """pyproject.toml's ``paiju.games`` group holds the four; nothing else does."""
    assert discover({}) == {
        "doudizhu": "paiju.games.doudizhu.game:Doudizhu",
        "hunzhan": "paiju.games.hunzhan.game:Hunzhan",
        "shengji": "paiju.games.shengji.game:Shengji", "daa": "paiju.games.daa.game:Daa"}
    assert set(ENGINES) >= BUILT_IN


def test_paiju_games_adds_a_module() -> None:
    """``PAIJU_GAMES`` names a module: its engine classes register by name; a
    module without one, or a malformed name, is refused."""
    assert discover({"PAIJU_GAMES": "tests.games.duel"})["duel"] == "tests.games.duel:Duel"
    assert module_games("tests.games.duel") == {"duel": "tests.games.duel:Duel"}
    with pytest.raises(ValueError, match="defines no rules engine"):
        discover({"PAIJU_GAMES": "tests.games"})
    with pytest.raises(ValueError, match="PAIJU_GAMES"):
        discover({"PAIJU_GAMES": "not a module"})


@pytest.fixture
def duel_registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("PAIJU_GAMES", "tests.games.duel")
    ENGINES.reload()
    yield
    monkeypatch.delenv("PAIJU_GAMES")
    ENGINES.reload()


def test_a_registered_module_plays(duel_registered: None) -> None:
    """The fifth game is found by name and plays to its end by random self-play:
    six tricks, each seat its tricks − 3 (the module's rule), zero-sum."""
    assert load("duel") is Duel
    game, record = play_random("duel", random.Random(3))
    result = game.result()
    assert result.kind == "normal" and sum(result.detail["tricks"]) == 6
    assert result.points == [t - 3 for t in result.detail["tricks"]]
    assert record["game"] == "duel"


@pytest.mark.parametrize("cls", engines(), ids=lambda c: c.name)
def test_escape_finishes_every_engine(cls: type[Game]) -> None:
    """After any end, an escape in the first phase too, the phase is
    ``finished``, nobody is to act and the result's kind is ``escape``."""
    g = new(cls)
    g.apply(Action(1, "escape"))
    assert g.phase == "finished" and g.finished and g.to_act() == []
    assert g.view(0)["phase"] == "finished"
    assert g.result().kind == "escape" and g.result().detail["escaped"] == 1


#: Room-wide options (rulings.md "Shared by all games", "Settlement"): accepted
#: by every game, with or without its own options.
ROOM = {"base": 100, "unit": 5, "fee_rate": 0.02, "turn_seconds": 30,
        "reconnect_seconds": 60, "declare_grace_seconds": 5, "deal_interval_ms": 100,
        "no_call_fee": 20}
BAD_ROOM: list[dict[str, Any]] = [{"fee_rate": 1}, {"fee_rate": -0.1}, {"unit": 0}, {"base": 1.5},
            {"base": True}, {"turn_seconds": 0}, {"reconnect_seconds": -1},
            {"turn_seconds": "20"}, {"deal_interval_ms": -1}, {"no_call_fee": 2.5},
            {"no_such_option": 1}]


@pytest.mark.parametrize("cls", engines(), ids=lambda c: c.name)
def test_room_wide_options_are_the_same_for_every_game(cls: type[Game]) -> None:
    """Every game accepts the room-wide options and refuses the same bad ones,
    in ``check_options`` (the lobby, no deal) as in its constructor."""
    cls.check_options(ROOM)
    new(cls, dict(ROOM))
    for bad in BAD_ROOM:
        with pytest.raises(RulesError) as e:
            cls.check_options(bad)
        assert e.value.code == "bad_options", bad
        with pytest.raises(RulesError) as e:
            new(cls, dict(bad))
        assert e.value.code == "bad_options", bad


def test_own_options_checked_without_a_deal() -> None:
    """shengji plays 1 to 4 decks (rulings.md "shengji"): the lobby's check
    refuses 5 without a deal."""
    load("shengji").check_options({"decks": 4})
    with pytest.raises(RulesError) as e:
        load("shengji").check_options({"decks": 5})
    assert e.value.code == "bad_options"


def test_points_unit_and_redeal_fee() -> None:
    """rulings.md "Settlement": hunzhan counts points in units of 5, the others
    1; doudizhu's fee after two no-call deals in a row, nobody else's."""
    assert {n: load(n).policy.points_unit for n in BUILT_IN} == {
        "doudizhu": 1, "hunzhan": 5, "shengji": 1, "daa": 1}
    assert {n: load(n).policy.redeal_fee_after for n in BUILT_IN} == {
        "doudizhu": 2, "hunzhan": 0, "shengji": 0, "daa": 0}


def test_phases_for_clients() -> None:
    """What a client labels: doudizhu bids after its deal; the others declare
    during it; shengji's dealer buries after declaring; daa's declare is 亮大A
    (no 无主), seed 003."""
    rules = {n: load(n).client_rules() for n in BUILT_IN}
    assert {n: r["phase_after_deal"] for n, r in rules.items()} == {
        "doudizhu": "bidding", "hunzhan": "declaring", "shengji": "declaring",
        "daa": "declaring"}
    assert {n: r["declaring"] for n, r in rules.items()} == {
        "doudizhu": False, "hunzhan": True, "shengji": True, "daa": True}
    assert {n: r["phase_after_declaring"] for n, r in rules.items() if r["declaring"]} == {
        "hunzhan": "play", "shengji": "burying", "daa": "play"}
    assert rules["daa"]["declare_label"] == "亮大A" and not rules["daa"]["no_trump_declare"]
    assert rules["hunzhan"]["declare_label"] == "叫主" and rules["hunzhan"]["no_trump_declare"]
    assert {n: r["title"] for n, r in rules.items()} == {
        "doudizhu": "斗地主", "hunzhan": "混战", "shengji": "升级", "daa": "大A"}
    assert {n: r["seats"] for n, r in rules.items()} == {
        "doudizhu": 3, "hunzhan": 4, "shengji": 4, "daa": 5}


def test_a_game_names_its_own_actions_and_phases() -> None:
    """The words for 斗地主's bids (叫地主 / 不叫 / 抢地主 / 不抢, seed 002) and
    phases come with its rules, not from the client; the trick games' actions
    (play, pass, declare, bury) use the client's common words."""
    rules = {n: load(n).client_rules() for n in BUILT_IN}
    assert rules["doudizhu"]["action_labels"] == {
        "call": "叫地主", "no_call": "不叫", "rob": "抢地主", "no_rob": "不抢"}
    assert rules["doudizhu"]["phase_labels"] == {"bidding": "叫地主", "robbing": "抢地主"}
    assert {n: r["action_labels"] for n, r in rules.items() if n != "doudizhu"} == {
        "hunzhan": {}, "shengji": {}, "daa": {}}


def test_redeal_is_a_result_kind() -> None:
    """Nobody bids (doudizhu) or declares (hunzhan, shengji): a redeal, told by
    the result's kind; daa always has a big A (hearts by default): no redeal."""
    g = new(load("doudizhu"))
    for _ in range(3):
        g.apply(Action(g.to_act()[0], "no_call"))
    assert g.finished and g.result().kind == "redeal"
    assert g.carry_over() == {}
    for name in ("hunzhan", "shengji"):
        g = new(load(name))
        g.apply(Action(None, "end_declare"))
        assert g.finished and g.result().kind == "redeal", name
    g = new(load("daa"))
    g.apply(Action(None, "end_declare"))
    assert not g.finished and g.phase == "play"


def played_out(name: str, seed: int) -> tuple[Game, list[Event]]:
    """A random self-play game of ``name`` that ended normally and its events."""
    for s in range(seed, seed + 50):
        done, record = play_random(name, random.Random(s))
        if done.result().kind == "normal":
            g = load(name)(record["options"], record["deal"])
            events = [e for a in record["actions"] for e in g.apply(Action.from_json(a))]
            return g, events
    raise AssertionError(f"no normal {name} game in 50 seeds")


def test_carry_over() -> None:
    """seed 000: the last trick's winner is dealt to first next game (hunzhan);
    seed 004: the next dealer deals (shengji); nothing else carries."""
    g, events = played_out("hunzhan", 1)
    last = [e.data["seat"] for e in events if e.type == "trick_won"][-1]
    assert g.carry_over() == {"first": last}
    g, _ = played_out("shengji", 1)
    assert set(g.carry_over()) == {"dealer"} and 0 <= g.carry_over()["dealer"] < 4
    for name in ("doudizhu", "daa"):
        g, _ = played_out(name, 1)
        assert g.carry_over() == {}, name


def test_scores_and_last_trick_views() -> None:
    """看分 counts the points each seat took (hunzhan: 5, 10, K, jokers) and
    上一轮 shows the trick just won with its winner, from the engine itself."""
    g, events = played_out("hunzhan", 2)
    scores = g.scores_view()
    assert sum(scores["captured"]) == 240  # rulings.md hunzhan: "240 in all"
    assert [s["points"] for s in scores["scores"]] == scores["captured"]
    won = [e.data["seat"] for e in events if e.type == "trick_won"]
    assert g.last_trick_view()["last_trick_winner"] == won[-1]
    d = Duel({}, {"hands": [["9S", "TS", "JS", "QS", "KS", "AS"],
                            ["9H", "TH", "JH", "QH", "KH", "AH"]], "first": 1})
    d.apply(Action(1, "play", ("AH",)))
    d.apply(Action(0, "play", ("9S",)))  # no heart to follow: any card, and it loses
    assert d.last_trick_view()["last_trick"]["winner"] == 1
    assert d.scores_view() == {"captured": [0, 1]}
    assert d.display()["points"] == [0, 1]


def test_paiju_up_passes_the_games_to_every_process(tmp_path: Path) -> None:
    """``paiju up`` (paiju/tools/up.py) starts every service with the caller's
    ``PAIJU_GAMES`` and the checkout on ``PYTHONPATH``, so each process finds a
    game module named there (tests.games.duel from the repository root)."""
    from paiju.tools.up import plan

    env = {"PAIJU_GAMES": "tests.games.duel", "PAIJU_DATA_DIR": str(tmp_path)}
    p = plan(env)
    root = str(Path(__file__).resolve().parents[2])
    for member in p.instances():
        child = p.child_env(member, "nats://127.0.0.1:4222", base=env)
        assert child["PAIJU_GAMES"] == "tests.games.duel", member.name
        assert root in child["PYTHONPATH"].split(":"), member.name
        assert discover(child)["duel"] == "tests.games.duel:Duel"
