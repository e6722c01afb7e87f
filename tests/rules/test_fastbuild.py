"""paiju.rules.fastbuild: objects built without the dataclasses' ``__init__`` are
the same values as those built normally (equal, same hash, same fields)."""

from __future__ import annotations

from paiju.rules.engine import Action, Event
from paiju.rules.fastbuild import event, play_action, play_actions


def test_event_equals_a_normal_event() -> None:
    e = event("played", {"seat": 1, "cards": ["5S"]}, None)
    assert e == Event("played", {"seat": 1, "cards": ["5S"]})
    assert (e.type, e.data, e.to) == ("played", {"seat": 1, "cards": ["5S"]}, None)
    assert event("hand", {"cards": []}, 2) == Event("hand", {"cards": []}, to=2)
    assert event("hand", {"cards": []}, 2) != Event("hand", {"cards": []}, to=1)


def test_play_actions_equal_normal_actions() -> None:
    one = play_action(3, ("5S", "5H"))
    assert one == Action(3, "play", ("5S", "5H")) and hash(one) == hash(
        Action(3, "play", ("5S", "5H")))
    assert one.dealt is None and one.to_json() == {"seat": 3, "type": "play",
                                                    "cards": ["5S", "5H"]}
    # short lists are built one by one, long ones (> 8) field by field
    ranks = "56789TJQKA23" * 4
    for n in (0, 3, 8, 9, 40):
        plays: list[tuple[str, ...]] = [(f"{r}S",) for r in ranks[:n]]
        got = play_actions(0, plays)
        assert got == [Action(0, "play", p) for p in plays]
        assert {hash(a) for a in got} == {hash(Action(0, "play", p)) for p in plays}
