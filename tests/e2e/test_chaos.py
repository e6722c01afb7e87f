"""The chaos soak's short run (bench/chaos.py ``--quick``) as a real process:
bots play the four games on ``paiju up --tables 2 --gateways 2
--nats-cluster 3`` while table instances, gateways, the lobby, the ledger
and NATS nodes are SIGKILLed or SIGSTOPped at random; every invariant must
hold (games finished and none voided, settled once and stored once, the
ledger's audit, seat limits, no hidden card shown, views as the server's),
with faults of several kinds injected. PostgreSQL where one answers, else
SQLite; NATS is the platform's own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paiju_up import UNSET

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

ROOT = Path(__file__).resolve().parents[2]


def test_the_quick_chaos_soak_keeps_every_invariant(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in UNSET} | {"TMPDIR": str(tmp_path)}
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "chaos.py"), "--quick"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=280)
    assert run.stdout.strip(), run.stderr[-3000:]
    print(run.stdout)  # the report, shown where the test fails
    result = json.loads(run.stdout.strip().splitlines()[-1])
    failed = {name: c for name, c in result["invariants"].items() if not c["ok"]}
    assert not failed, (sorted(failed), run.stderr[-3000:])
    assert run.returncode == 0, run.stdout
    assert set(result["invariants"]) == {"games", "settled_once", "ledger_audit",
                                         "seat_limits", "hidden_cards", "views"}
    # Faults of several kinds were injected, and games were played through them.
    assert len(result["faults_by_kind"]) >= 4, result["fault_list"]
    assert result["faults"] >= 5, result["fault_list"]
    assert sum(result["games_finished"].values()) >= 4, result["games_finished"]
    assert result["stall_s"]["games"] > 0
