"""End to end: the platform as ``paiju up`` runs it (real NATS, the four
services as processes, SQLite), bots playing every game through the gateway;
then the ledger, the stored records and the exported metrics are checked."""

from __future__ import annotations

import json
import re
import sqlite3
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families

from paiju.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from paiju.rules import ENGINES
from paiju.tools.bots import run_bots
from tests.conftest import REPO
from tests.fixtures import service_channel
from tests.platform_procs import SERVICES, Platform, running_platform

#: Bots play a game of each of the four before the first test: about 40 s.
pytestmark = [pytest.mark.timeout(900), pytest.mark.slow]


@pytest.fixture(scope="module")
def played() -> Iterator[tuple[Platform, dict[str, Any]]]:
    """A platform on which bots have played one game of each of the four games."""
    import asyncio

    with running_platform() as p:
        summary = asyncio.run(run_bots(p.gateway_url, ["doudizhu", "hunzhan", "shengji", "daa"],
                                       1, 1, (0.0, 0.0), seed=11, show_progress=False))
        yield p, summary


def test_bots_finish_a_game_of_every_game(played: tuple[Platform, dict[str, Any]]) -> None:
    _, summary = played
    assert summary["games_finished"] == {"doudizhu": 1, "hunzhan": 1, "shengji": 1, "daa": 1}
    # The only refusal a fair bot may meet: a declaration overtaken by a
    # stronger one made at the same moment (a round of the paced deal gives
    # every seat its card together; with no thinking time bots declare at
    # once, rulings.md: the later, weaker one is refused).
    assert set(summary["errors"]) <= {"declare_too_weak"}, summary["errors"]
    assert summary["actions"] > 0 and summary["rtt_ms"]["p99"] is not None


def rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as conn:
        return list(conn.execute(sql).fetchall())


def test_every_game_is_settled_once_and_the_ledger_balances(
        played: tuple[Platform, dict[str, Any]]) -> None:
    p, _ = played
    records = rows(p.data / "table.db",
                   "SELECT game_id, reason, record_json FROM table_game_records")
    finished = [(gid, reason) for gid, reason, _ in records if reason != "redeal"]
    assert len(finished) == 4
    settled = Counter(ref for (ref,) in rows(
        p.data / "ledger.db", "SELECT reference FROM ledger_transactions WHERE kind = 'settle'"))
    for gid, _ in finished:
        assert settled[gid] == 1, gid
    assert all(n == 1 for n in settled.values())
    # Each stored record replays to a finished game.
    from paiju.tools.replay import replay

    for _gid, reason, text in records:
        out = replay(json.loads(text))
        assert out["finished"], reason

    async def audit() -> ledger_pb2.AuditResponse:
        async with service_channel(p.addr("ledger")) as ch:
            reply: ledger_pb2.AuditResponse = await ledger_pb2_grpc.LedgerServiceStub(ch).Audit(
                ledger_pb2.AuditRequest())
            return reply

    import asyncio

    result = asyncio.run(audit())
    assert result.ok and result.journal_sum == 0 and not result.mismatched_accounts


METRIC = re.compile(r"\b((?:paiju|grpc)_[a-z0-9_]+)")
LABELS = {"grpc_code", "grpc_service", "grpc_method", "grpc_type"}


def scrape(p: Platform, service: str) -> list[Metric]:
    """The metric families ``service`` exports on its /metrics endpoint."""
    text = urllib.request.urlopen(f"http://127.0.0.1:{p.metrics[service]}/metrics",
                                  timeout=10).read().decode()
    return list(text_string_to_metric_families(text))


def exported_names(p: Platform) -> set[str]:
    """Every sample name the four services export (histogram and counter
    suffixes included), whether or not a sample has been recorded yet."""
    names: set[str] = set()
    for service in SERVICES:
        for family in scrape(p, service):
            suffixes = {"counter": ["_total"], "histogram": ["_bucket", "_sum", "_count"],
                        "summary": ["_sum", "_count"]}.get(family.type, [""])
            names.update(family.name + s for s in suffixes)
            names.update(s.name for s in family.samples)
    return names


def named_in_monitoring() -> set[str]:
    base = REPO / "deploy" / "base" / "monitoring"
    dashboard = json.loads((base / "paiju-dashboard.json").read_text())
    exprs = [t["expr"] for panel in dashboard["panels"] for t in panel["targets"]]
    rules = yaml.safe_load((base / "prometheusrule.yaml").read_text())
    exprs += [r["expr"] for g in rules["spec"]["groups"] for r in g["rules"]]
    return {m for e in exprs for m in METRIC.findall(e)} - LABELS


def test_every_metric_of_the_dashboard_and_alerts_is_exported(
        played: tuple[Platform, dict[str, Any]]) -> None:
    p, _ = played
    wanted = named_in_monitoring()
    assert len(wanted) > 10
    missing = wanted - exported_names(p)
    assert not missing, f"named in deploy/ but exported by no service: {sorted(missing)}"


#: The labels a ``paiju_*`` metric may carry: each has a small, fixed set of
#: values (game types, results, error codes, states, dependencies); never a
#: player, game, room or connection id (the developers' guide: no unbounded labels).
BOUNDED_LABELS = {"game", "result", "reason", "kind", "operation", "state", "cmd", "code",
                  "dependency", "method", "outcome", "viewer", "direction", "generation",
                  "event"}
GAME_ID = re.compile(r"[0-9a-f]{32}(?:\.r\d+)?")


def test_metrics_carry_no_unbounded_labels(played: tuple[Platform, dict[str, Any]]) -> None:
    p, _ = played
    checked = 0
    for service in SERVICES:
        for family in scrape(p, service):
            for sample in family.samples:
                labels = dict(sample.labels)
                labels.pop("le", None)  # histogram buckets
                # Neither the bots' player ids (dev-<hash>) nor the lobby's game ids
                # (32 hex digits, ``.r<n>`` for a redeal) label any sample.
                assert not [v for v in labels.values()
                            if v.startswith("dev-") or GAME_ID.fullmatch(v)], sample
                if not family.name.startswith("paiju_"):
                    continue
                checked += 1
                assert set(labels) <= BOUNDED_LABELS, (service, sample)
                if "game" in labels:
                    assert labels["game"] in ENGINES, (service, sample)
                # the garbage collector's generations (paiju_gc_pause_seconds)
                if "generation" in labels:
                    assert labels["generation"] in {"0", "1", "2"}, (service, sample)
                # a shared replay's events (paiju_gateway_replay_shares_total)
                if "event" in labels:
                    assert labels["event"] in {"made", "revoked", "opened"}, (service, sample)
    assert checked > 0
