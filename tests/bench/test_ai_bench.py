"""bench/ai.py runs end to end (``--quick``: a few deals) and writes its JSON
summary: doudizhu's matchups with WP and ADP per side, the CPU time per level,
and another game's matchups in the rotation format. No figure is
asserted (the bench's output, not a test's)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent


@pytest.mark.slow  # about 30 s: one hard matchup of 3 deals
@pytest.mark.timeout(600)
def test_quick_ai_bench_writes_its_summary(tmp_path: Path) -> None:
    out_json = tmp_path / "ai.json"
    proc = subprocess.run(
        [sys.executable, "bench/ai.py", "--quick", "--games", "doudizhu,hunzhan",
         "--matchups", "normal:random,hard:normal,normal:rule-v1",
         "--json", str(out_json)],
        cwd=REPO, capture_output=True, text=True, timeout=580,
        env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    summary = json.loads(out_json.read_text())
    assert summary["deals"] == 3
    ddz = summary["games"]["doudizhu"]
    assert set(ddz["matchups"]) == {"normal vs random", "hard vs normal", "normal vs rule-v1"}
    for r in ddz["matchups"].values():
        for key in ("wp", "adp", "adp_landlord", "adp_farmers"):
            assert {"mean", "lo", "hi"} <= set(r[key])
        for key in ("wp_landlord", "wp_farmers"):
            assert {"rate", "lo", "hi", "n"} <= set(r[key]) and r[key]["n"] == 3
    for lvl in ("normal", "hard", "random", "rule-v1"):
        assert {"p50_ms", "p99_ms", "n"} <= set(ddz["cpu"][lvl])
    assert "doudizhu normal vs the current bots: the same games" in proc.stdout
    assert "doudizhu decide CPU hard: p50 " in proc.stdout
    assert "1/3 deals" in proc.stderr  # progress
    hunzhan = summary["games"]["hunzhan"]["matchups"]
    assert set(hunzhan) == {"normal vs random", "hard vs normal"}  # rule-v1: doudizhu only
    assert "hunzhan normal vs random: deals won " in proc.stdout
