"""The hunzhan worst position (a void follower facing a 7-pair run: 116,280
legal follows) played through a running table service while other games run
on the same instance.

Work is counted, not timed: the candidate plays the engines' lazy generators
build (:data:`paiju.rules.bounded.WORK`; the table runs in this process) stay
within 50 per hints or view call, and nothing for the timeout's default
action; the other games' actions are answered while the seat is on its turn. The
scenario is bench/worst_table.py's, which also gives the instance's longest
unresponsive gap (a time, so a bench figure).
"""

from __future__ import annotations

import pytest

from bench.worst import RUN7
from bench.worst_table import LagMonitor, play_worst
from paiju.rules.bounded import HINT_PLAYS
from tests.table.conftest import Harness

#: seat 1's lowest follow (rulings.md "Shared"): the 12 clubs and diamonds, then
#: the two lowest trumps (spades are trump).
LOWEST = ["7C", "7D", "8C", "8D", "9C", "9D", "JC", "JD", "QC", "QD", "AC", "AD", "7S", "8S"]


@pytest.mark.timeout(120)
async def test_hunzhan_worst_position_through_the_table(harness: Harness) -> None:
    with LagMonitor() as lag:  # the instance's longest gap: a bench figure, not asserted
        r = await play_worst(harness, RUN7, tag="b", lag=lag)
    # Other games were answered to their end while the seat was on its turn.
    assert len(r.accepted) == 3 and all(n > 0 for n in r.accepted)
    assert r.view_after["to_act"] == [1] and r.view_after["tricks_played"] == 0
    # Bounded replies and bounded work: 50 plays per hints call, no more built.
    assert r.hints_calls >= 1 and r.hints_replies
    for actions in r.hints_replies:
        assert len(actions) == HINT_PLAYS and all(a.type == "play" for a in actions)
        assert all(len(a.cards) == 14 for a in actions)
    # + 3: the seat's your_turn and the two views (each carries the options
    # as hints gives them)
    assert r.plays_built <= (r.hints_calls + 3) * HINT_PLAYS
    # The clock ran out: the default action was computed directly.
    assert sorted(r.timeout_play) == sorted(LOWEST)
    assert r.timeout_plays_built <= HINT_PLAYS
    assert r.lag_samples > 0
