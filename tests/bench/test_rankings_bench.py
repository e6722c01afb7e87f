"""``bench/rankings.py`` keeps working on a small generated journal: it
prints its figures beside the baselines, and the three ways of ranking (the
materialised rankings, the tally summed at the read, the journal itself
summed at the read) agreed on every call (the bench stops otherwise). No
timing is asserted: the numbers are the bench's output, not a test's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent


@pytest.mark.postgres
@pytest.mark.timeout(300)
def test_rankings_bench_runs_on_a_small_journal(postgres_url: str) -> None:
    proc = subprocess.run(
        [sys.executable, str(REPO / "bench" / "rankings.py"), "--entries", "8000",
         "--players", "400", "--servers", "2", "--days", "10", "--calls", "3",
         "--url", postgres_url], capture_output=True, text=True, timeout=280)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.strip().splitlines()
    assert lines[0].startswith("rankings over 8000 journal rows: ledger (materialised)")
    assert "database execution time" in lines[1]
    figures = json.loads(lines[-1])
    assert figures["entries"] == 8000 and len(figures["refresh_ms"]) == 2
    assert set(figures["database_ms"]) == {"ledger", "tally", "journal"}
    assert "ledger_entries': 8000" in proc.stderr
