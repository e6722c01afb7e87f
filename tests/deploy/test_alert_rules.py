"""The PrometheusRule checked and unit-tested by Prometheus itself: ``promtool
check rules`` on its groups as each overlay renders them, ``promtool test
rules`` with the files of ``deploy/base/monitoring/tests/``, in which every
alert has series under which it fires (labels and annotations asserted) and
series under which it stays silent, and every recording rule its values.
Skips without promtool (Debian's ``prometheus``) or, for the rendered
overlays, kubectl."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO
from tests.deploy.manifests import OVERLAYS, render
from tests.deploy.prometheus import (
    RULES_FILE,
    heading_anchors,
    promtool,
    rule_groups,
    rules_by_name,
    unit_test_files,
    write_rules,
)

#: Every alert of the PrometheusRule, as docs/operations.md "Alerts" lists them.
ALERTS = {
    "PaijuGrpcErrorRate", "PaijuSettlementFailures", "PaijuSettlementRetries",
    "PaijuGameRecordsLost", "PaijuGamesVoided", "PaijuDependencyDown", "PaijuGamesStuck",
    "PaijuSlowClientDisconnectsSurge", "PaijuGatewayShedding",
    # docs/operations.md "Service level objectives"
    "PaijuActionLatencyBudgetBurn", "PaijuSignInBudgetBurn", "PaijuGameSettlementBudgetBurn",
}
#: Every recording rule of the PrometheusRule: each SLO's error ratio over
#: the windows of its burn-rate alert.
RECORDS = {f"paiju:slo_{slo}_errors:ratio_rate{window}"
           for slo in ("action", "signin", "game") for window in ("5m", "30m", "1h", "6h")}

RUNBOOKS = "https://github.com/paiju/paiju/blob/main/docs/operations.md#"
BASE_RULE = REPO / "deploy" / "base" / "monitoring" / "prometheusrule.yaml"


@pytest.fixture(scope="module", params=OVERLAYS)
def rendered(request: pytest.FixtureRequest) -> list[dict[str, Any]]:
    return render(request.param)


def base_rule() -> list[dict[str, Any]]:
    """The PrometheusRule as written (kustomize changes only its namespace)."""
    return [yaml.safe_load(BASE_RULE.read_text())]


def test_the_rules_are_the_documented_ones() -> None:
    alerts, records = rules_by_name(base_rule())
    assert set(alerts) == ALERTS
    assert set(records) == RECORDS


def test_promtool_checks_the_rules_of_each_overlay(rendered: list[dict[str, Any]],
                                                   tmp_path: Path) -> None:
    path = write_rules(rendered, tmp_path)
    proc = promtool("check", "rules", str(path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"SUCCESS: {len(ALERTS) + len(RECORDS)} rules found" in proc.stdout, proc.stdout


def test_the_overlays_render_the_same_rules() -> None:
    """So the unit tests need to run on one overlay only."""
    assert rule_groups(render("dev")) == rule_groups(render("prod"))


def test_promtool_unit_tests_pass(tmp_path: Path) -> None:
    write_rules(render("prod"), tmp_path)
    files = unit_test_files()
    assert files, "no promtool unit test files"
    for f in files:
        shutil.copy(f, tmp_path / f.name)
    proc = promtool("test", "rules", *(f.name for f in files), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("SUCCESS") == len(files), proc.stdout


def unit_tests() -> list[dict[str, Any]]:
    """Every test group of every unit test file (each file names the rules file)."""
    groups = []
    for f in unit_test_files():
        doc = yaml.safe_load(f.read_text())
        assert doc["rule_files"] == [RULES_FILE], f
        groups.extend(doc["tests"])
    return groups


def test_every_alert_has_a_firing_and_a_silent_case() -> None:
    firing: set[str] = set()
    silent: set[str] = set()
    for group in unit_tests():
        for case in group.get("alert_rule_test", []):
            (firing if case.get("exp_alerts") else silent).add(case["alertname"])
            for alert in case.get("exp_alerts") or []:
                assert alert["exp_annotations"]["summary"], case
                assert alert["exp_labels"]["severity"] in {"page", "warn"}, case
    assert ALERTS - firing == set(), "alerts never seen firing"
    assert ALERTS - silent == set(), "alerts never seen silent"


def test_every_recording_rule_has_a_value_under_errors_and_without() -> None:
    """Each recording rule is evaluated by a ``promql_expr_test``: once with a
    value above 0 (errors) and once at 0 (none)."""
    above: set[str] = set()
    zero: set[str] = set()
    for group in unit_tests():
        for case in group.get("promql_expr_test", []):
            name = case["expr"].strip()
            for sample in case.get("exp_samples") or []:
                (above if float(sample["value"]) > 0 else zero).add(name)
    assert RECORDS - above == set(), "recording rules never tested with errors"
    assert RECORDS - zero == set(), "recording rules never tested without errors"


def test_every_alert_links_its_runbook_in_operations_md() -> None:
    alerts, _ = rules_by_name(base_rule())
    anchors = heading_anchors((REPO / "docs" / "operations.md").read_text())
    for name, rule in alerts.items():
        url = rule["annotations"]["runbook_url"]
        assert url.startswith(RUNBOOKS), name
        assert url.removeprefix(RUNBOOKS) in anchors, f"{name}: no section for {url}"


def test_operations_md_lists_every_alert() -> None:
    text = (REPO / "docs" / "operations.md").read_text()
    for name in ALERTS:
        assert re.search(rf"`{name}`", text), name
