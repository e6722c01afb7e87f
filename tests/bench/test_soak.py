"""The presence soak (bench/soak.py): its checks read the rules' limits right,
and a 30 s run with drops at every phase breaks none of them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench import soak

REPO = Path(__file__).resolve().parent.parent.parent
NOW = 1_800_000_000_000


def room(state: str, *away_s: float | None) -> dict[str, object]:
    """A room as the gateway's ``rooms`` gives it; ``None``: a connected seat."""
    seats = [{"player": f"p{i}", "connected": a is None,
              "away_since": None if a is None else NOW - int(a * 1000)}
             for i, a in enumerate(away_s)]
    return {"room": "r1", "state": state, "seats": seats}


def test_a_seat_away_outside_a_game_past_idle_plus_slack_is_a_violation() -> None:
    limit = soak.IDLE_DISCONNECT_SECONDS + soak.SLACK_SECONDS
    assert soak.violations([room("waiting", None, limit - 1)], NOW) == []
    assert soak.violations([room("waiting", None, limit + 1)], NOW) == [
        f"r1: p1 away {limit + 1} s outside a game"]


def test_a_seat_away_in_a_game_past_its_whole_budget_is_a_violation() -> None:
    limit = soak.RECONNECT_SECONDS + soak.SLACK_SECONDS
    assert soak.violations([room("started", None, limit - 1, None)], NOW) == []
    assert soak.violations([room("started", None, limit + 1, None)], NOW) == [
        f"r1: p1 away {limit + 1} s in a game"]


def test_a_started_table_with_every_seat_gone_too_long_is_a_violation() -> None:
    gone = soak.RECONNECT_SECONDS + soak.DEAL_SECONDS + soak.SLACK_SECONDS + 1
    found = soak.violations([room("started", gone, gone + 3, gone + 5)], NOW)
    assert f"r1: every seat gone {gone} s, still started" in found
    assert soak.violations([room("started", 5, 6, None)], NOW) == []


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_quick_soak_breaks_no_rule() -> None:
    proc = subprocess.run([sys.executable, "bench/soak.py", "--quick"], cwd=REPO,
                          capture_output=True, text=True, timeout=580,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    assert " 0 violations" in proc.stdout and "0 not settled once" in proc.stdout
