"""Prometheus' own tools on paiju's monitoring: the PrometheusRule of a
rendered overlay as a plain rules file (its ``spec.groups``, what the
Prometheus Operator hands to Prometheus), the alert and recording rule names
in it, the ``promtool test rules`` files of ``deploy/base/monitoring/tests/``,
and ``promtool`` / ``prometheus`` themselves (the calling test skips where
they are missing)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO

#: The ``promtool test rules`` files; each names the rules file
#: :data:`RULES_FILE`, which the tests write beside copies of them.
UNIT_TESTS = REPO / "deploy" / "base" / "monitoring" / "tests"
RULES_FILE = "paiju-rules.yaml"
Doc = dict[str, Any]


def tool(name: str) -> str:
    """The path of Prometheus' ``name`` (``promtool``, ``prometheus``); skips
    the calling test where it is not installed."""
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed (.ci/run installs Debian's prometheus)")
    return path


def rule_groups(docs: list[Doc]) -> list[Doc]:
    """The rule groups of the (one) PrometheusRule of ``docs``."""
    rules = [d for d in docs if d["kind"] == "PrometheusRule"]
    assert len(rules) == 1, f"{len(rules)} PrometheusRules rendered, one expected"
    groups: list[Doc] = rules[0]["spec"]["groups"]
    return groups


def write_rules(docs: list[Doc], folder: Path) -> Path:
    """The rules file (``groups:``) of ``docs``'s PrometheusRule in ``folder``."""
    path = folder / RULES_FILE
    path.write_text(yaml.safe_dump({"groups": rule_groups(docs)}, sort_keys=False))
    return path


def rules_by_name(docs: list[Doc]) -> tuple[dict[str, Doc], dict[str, Doc]]:
    """The alerting rules and the recording rules of ``docs``, by name."""
    alerts: dict[str, Doc] = {}
    records: dict[str, Doc] = {}
    for group in rule_groups(docs):
        for rule in group["rules"]:
            if "alert" in rule:
                alerts[rule["alert"]] = rule
            else:
                records[rule["record"]] = rule
    return alerts, records


def unit_test_files() -> list[Path]:
    """The ``promtool test rules`` files of the repository."""
    return sorted(UNIT_TESTS.glob("*.yaml"))


def promtool(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``promtool args…`` (skips without promtool), its output captured."""
    return subprocess.run([tool("promtool"), *args], capture_output=True, text=True,
                          timeout=120, check=False, cwd=cwd)


def heading_anchors(markdown: str) -> set[str]:
    """The anchors GitHub gives the headings of ``markdown``: lower case,
    punctuation but ``-`` and ``_`` dropped, spaces as ``-``."""
    anchors = set()
    for line in markdown.splitlines():
        m = re.match(r"#{1,6} (.+)", line)
        if m:
            text = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower())
            anchors.add(text.replace(" ", "-"))
    return anchors
