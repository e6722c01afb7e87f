"""Every rule case in shared/cases/<game>/ passes through replay.

The folder is read at collection time, so new cases are picked up without
code changes. A case is compared as shared/tools/check_cases.py does: every
action's ok flag, ``finished``, ``points`` and ``detail`` as a subset.
Cases known to contradict the seeds and rulings are listed in ``XFAIL`` with
the reason (none so far).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from paiju.tools.replay import replay
from tests.conftest import shared_dir

#: case file stem → why it contradicts the seeds and rulings.
XFAIL: dict[str, str] = {}

CASES = sorted(shared_dir().glob("cases/*/*.json"))


def _check(case: dict[str, Any]) -> None:
    out = replay(case["record"])
    exp = case["expect"]
    got_ok = [a["ok"] for a in out["actions"]]
    for i, (got, want) in enumerate(zip(got_ok, exp["ok"], strict=True)):
        action = case["record"]["actions"][i]
        assert got == want, f"action {i} {action}: expected ok={want}, got {out['actions'][i]}"
    assert out["finished"] == exp["finished"]
    res = out.get("result") or {}
    if "points" in exp:
        assert res.get("points") == exp["points"]
    for key, value in (exp.get("detail") or {}).items():
        assert res.get("detail", {}).get(key) == value, f"detail.{key}"


@pytest.mark.parametrize("path", CASES, ids=[f"{p.parent.name}/{p.stem}" for p in CASES])
def test_case(path: Path) -> None:
    if path.stem in XFAIL:
        pytest.xfail(XFAIL[path.stem])
    _check(json.loads(path.read_text(encoding="utf-8")))


def test_cases_found() -> None:
    if not shared_dir().is_dir():
        pytest.skip("shared/ not found")
    assert {p.parent.name for p in CASES} >= {"doudizhu", "hunzhan", "shengji", "daa"}


def test_check_cases_tool(shared: Path) -> None:
    """The shared checker, through the real ``paiju`` executable, agrees."""
    exe = shutil.which("paiju") or str(Path(sys.executable).parent / "paiju")
    tool = shared / "tools" / "check_cases.py"
    games = [shared / "cases" / g for g in ("doudizhu", "hunzhan", "shengji", "daa")
             if (shared / "cases" / g).is_dir()]
    proc = subprocess.run([sys.executable, str(tool), exe, *map(str, games)],
                          capture_output=True, text=True, timeout=600, check=False)
    xfails = [line for line in proc.stdout.splitlines()
              if line.startswith("FAIL") and line.split()[1].split(":")[0].split("/")[-1] in XFAIL]
    fails = [line for line in proc.stdout.splitlines() if line.startswith("FAIL")]
    assert fails == xfails, proc.stdout
