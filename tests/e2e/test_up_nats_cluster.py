"""``paiju up --nats-cluster 3`` (docs: README "Running it"): NATS as three
``nats-server`` nodes routed to each other, JetStream on each, every service
given every node and the game log at three replicas; a node SIGKILLed is
started again by ``paiju up`` as any child; once every node is healthy
again, bots play a game of doudizhu and one of hunzhan to the end. (What a
lost node costs games under way: tests/e2e/test_nats_cluster.py.)"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from paiju.tools.bots import run_bots
from paiju.tools.nats_cluster import whole
from tests.paiju_up import running_up

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]



def monitor_ports(logs: Path) -> dict[str, int]:
    """Each node's monitoring port, as its log says (``nats-<i>`` → port)."""
    out = {}
    for log in sorted(logs.glob("nats-*.log")):
        m = re.search(r"Starting http monitor on [\d.]+:(\d+)", log.read_text(errors="replace"))
        assert m, log.read_text(errors="replace")[-2000:]
        out[log.stem] = int(m.group(1))
    return out


def jsz(port: int) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/jsz", timeout=5) as r:
        data: dict[str, Any] = json.loads(r.read())
    return data


def game_log_replicas(port: int) -> list[int]:
    """The replicas of each game log stream (``paiju_gamelog_*``), as /jsz says."""
    url = f"http://127.0.0.1:{port}/jsz?accounts=true&streams=true&config=true"
    with urllib.request.urlopen(url, timeout=5) as r:
        data = json.loads(r.read())
    return [int(d["config"]["num_replicas"])
            for account in data.get("account_details") or []
            for d in account.get("stream_detail") or []
            if str(d.get("name", "")).startswith("paiju_gamelog_")]


def wait_healthy(ports: dict[str, int], seconds: float) -> None:
    """Wait until JetStream is whole again (:func:`whole`)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            if whole("127.0.0.1", ports):
                return
        except OSError:
            pass
        assert time.monotonic() < deadline, "JetStream did not become whole again"
        time.sleep(0.2)


def node_pid(name: str, logs: Path) -> int:
    """The pid of node ``name``, from its log's first line naming it."""
    m = re.search(r"\[(\d+)\]", (logs / f"{name}.log").read_text(errors="replace"))
    assert m
    return int(m.group(1))


def test_paiju_up_runs_nats_as_a_cluster_and_restarts_a_lost_node(tmp_path: Path) -> None:
    with running_up(tmp_path, "--nats-cluster", "3") as up:
        banner = up.out.read_text(errors="replace")
        logs = up.data / "logs"
        nats_line = next(line for line in banner.splitlines() if line.strip().startswith("nats"))
        assert nats_line.count("nats://") == 3, nats_line
        ports = monitor_ports(logs)
        assert sorted(ports) == ["nats-0", "nats-1", "nats-2"]
        # One JetStream meta group of three, with a leader.
        meta = jsz(ports["nats-0"])["meta_cluster"]
        assert meta["cluster_size"] == 3 and meta["leader"], meta
        # A node lost: paiju up starts it again, as any child.
        os.kill(node_pid("nats-1", logs), signal.SIGKILL)
        up.wait_for("nats-1 restarted", 30)
        wait_healthy(ports, 60)
        summary = asyncio.run(run_bots(up.gateway_url, ["doudizhu", "hunzhan"],
                                       1, 1, (0.0, 0.1), seed=3, show_progress=False))
        assert summary["games_finished"] == {"doudizhu": 1, "hunzhan": 1}, summary
        assert set(summary["errors"]) <= {"declare_too_weak"}, summary
        # The game log's stream is kept at three replicas.
        assert game_log_replicas(ports["nats-0"]) == [3]
