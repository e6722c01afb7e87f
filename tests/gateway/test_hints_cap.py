"""The ``hints`` cap (docs/client-protocol.md): every
non-play option, and at most 50 plays, in the table's order."""

from __future__ import annotations

from paiju.common.v1 import common_pb2
from services.gateway.application.commands.game import capped_hints


def test_every_non_play_option_stays_and_plays_stop_at_fifty() -> None:
    plays = [common_pb2.Action(type="play", cards=[f"{i}"]) for i in range(70)]
    # A daa turn: the reveal option listed after many plays; a pass among them.
    actions = [*plays[:30], common_pb2.Action(type="pass"), *plays[30:],
               common_pb2.Action(type="reveal"), common_pb2.Action(type="declare", cards=["AS"])]
    out = capped_hints(actions)
    assert [a.type for a in out if a.type != "play"] == ["pass", "reveal", "declare"]
    assert [a.cards[0] for a in out if a.type == "play"] == [str(i) for i in range(50)]
    # The table's order is kept: the pass is still after the 30th play.
    assert out[30].type == "pass"
    assert len(out) == 53


def test_fewer_than_fifty_plays_are_all_kept() -> None:
    actions = [common_pb2.Action(type="call"), common_pb2.Action(type="no_call"),
               *(common_pb2.Action(type="play", cards=[str(i)]) for i in range(3))]
    assert capped_hints(actions) == actions
