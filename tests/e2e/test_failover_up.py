"""A table instance SIGKILLed under ``paiju up --tables 2``:
real processes (NATS with JetStream, ledger, two table instances,
lobby, gateway), bots at 8 doudizhu tables over the gateway; once every
game is under way the instance running more of them is killed. Every game
finishes, the bots see no error (the gateway sends their actions to the new
owner), the lobby placed games on both registered instances, none is
voided by the lobby's reconciler, each is settled once and
its record replays. The scenario is bench/failover.py's."""

from __future__ import annotations

import json
import sqlite3
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from bench.failover import Run, failover
from paiju.tools.replay import replay

pytestmark = [pytest.mark.timeout(900), pytest.mark.slow]


def rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as conn:
        return list(conn.execute(sql).fetchall())


def recovered(run: Run) -> float:
    """paiju_lobby_rooms_recovered_total, every reason, from the lobby's /metrics."""
    text = urllib.request.urlopen(f"http://127.0.0.1:{run.base + 11}/metrics",
                                  timeout=10).read().decode()
    return sum(s.value for f in text_string_to_metric_families(text)
               if f.name == "paiju_lobby_rooms_recovered" for s in f.samples
               if s.name.endswith("_total"))


async def test_a_killed_instance_loses_no_game_under_paiju_up() -> None:
    async with failover(tables=8, games=1, lease_seconds=2.0) as run:
        summary = run.summary
        assert summary["games_finished"] == {"doudizhu": 8}, summary
        assert summary["errors"] == {}, summary
        # The lobby found both instances in the registry (paiju up lists none).
        assert all(n > 0 for n in run.before_kill.values()), run.before_kill
        assert run.killed_rooms, "the killed instance ran no game"
        took = run.takeover_seconds()
        assert len(took) == len(run.killed_rooms), (run.killed_rooms, run.moved)
        print(f"takeover seconds (SIGKILL to game_moved): {sorted(round(t, 2) for t in took)}")
        for room in run.killed_rooms:
            assert run.where[room] != run.killed_addr or any(
                e.get("room") == room for _, e in run.moved)
        assert recovered(run) == 0
        assert "room recovered" not in run.log("lobby")
        records = rows(run.data / "table.db",
                       "SELECT game_id, reason, record_json FROM table_game_records")
        finished = [gid for gid, reason, _ in records if reason != "redeal"]
        assert len(finished) == 8 and len(set(finished)) == 8
        settled = Counter(ref for (ref,) in rows(
            run.data / "ledger.db",
            "SELECT reference FROM ledger_transactions WHERE kind = 'settle'"))
        assert {gid: settled[gid] for gid in finished} == {gid: 1 for gid in finished}
        assert sum(settled.values()) == 8
        for _gid, _reason, text in records:
            assert replay(json.loads(text))["finished"]
