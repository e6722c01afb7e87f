"""A Prometheus beside ``paiju up --prometheus``: the developer sees the graphs
and alerts production has.

It scrapes each local service instance under a job named after its service
(``lobby``, ``table``, ``ledger``, ``gateway``: the job names the Kubernetes
ServiceMonitor gives, which the rules and the dashboard use) every 5 s, and
loads the alerting and recording rules of the manifests' PrometheusRule
(``deploy/base/monitoring/prometheusrule.yaml``, read from the source tree;
without it, as from an installed wheel, Prometheus runs without rules).
Its data lives in the platform's data folder (``<data>/prometheus``).
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

#: The manifests' PrometheusRule, in a source tree.
RULES = (Path(__file__).resolve().parents[2]
         / "deploy/base/monitoring/prometheusrule.yaml")
#: Scrape and rule evaluation interval.
INTERVAL = "5s"
#: Prometheus' own default port: where it listens without ``PAIJU_UP_PORT_BASE``.
DEFAULT_PORT = 9090


def binary() -> str | None:
    """The ``prometheus`` on the PATH (Debian: ``apt-get install prometheus``), or None."""
    return shutil.which("prometheus")


def rule_groups(rules: Path = RULES) -> list[dict[str, Any]] | None:
    """The rule groups of the PrometheusRule at ``rules``; None where it is missing."""
    if not rules.is_file():
        return None
    groups: list[dict[str, Any]] = yaml.safe_load(rules.read_text())["spec"]["groups"]
    return groups


def configuration(targets: Mapping[str, Sequence[str]], rules_file: Path | None
                  ) -> dict[str, Any]:
    """Prometheus' configuration: a job per service of ``targets`` (service ->
    ``host:port`` of each instance's metrics), and ``rules_file`` if given."""
    return {
        "global": {"scrape_interval": INTERVAL, "evaluation_interval": INTERVAL},
        "rule_files": [str(rules_file)] if rules_file else [],
        "scrape_configs": [{"job_name": service, "static_configs": [{"targets": list(addrs)}]}
                           for service, addrs in targets.items()],
    }


def prepare(folder: Path, targets: Mapping[str, Sequence[str]], rules: Path = RULES
            ) -> tuple[list[str], bool]:
    """Write ``prometheus.yml`` (and ``rules.yml`` where ``rules`` exists) in
    ``folder``; return Prometheus' arguments after the binary (configuration,
    storage in ``folder/data``; the listen address is the caller's) and
    whether the rules were loaded."""
    folder.mkdir(parents=True, exist_ok=True)
    groups = rule_groups(rules)
    rules_file = None
    if groups is not None:
        rules_file = folder / "rules.yml"
        rules_file.write_text(yaml.safe_dump({"groups": groups}, sort_keys=False))
    config = folder / "prometheus.yml"
    config.write_text(yaml.safe_dump(configuration(targets, rules_file), sort_keys=False))
    return [f"--config.file={config}", f"--storage.tsdb.path={folder / 'data'}"], \
        groups is not None
