"""A real Prometheus (Debian's) against a running paiju: the platform with two
table instances as real processes, Prometheus scraping it as the
ServiceMonitor says (:mod:`tests.deploy.live_prometheus`) with paiju's rules,
bots playing a game of every type; then ``promtool check metrics`` on every
``/metrics``, every query of the Grafana dashboard and every rule's
expression evaluated through Prometheus' HTTP API; a table instance
SIGKILLed in the middle of a game (the takeover panel shows the game taken
over, and the game ends); and two faults: the
ledger stopped (sign-ins fail, the sign-in SLO sees it, its callers report it
lost: ``PaijuDependencyDown`` pending) and NATS stopped
(``PaijuDependencyDown`` pending for every instance; that it fires after its
``for: 2m`` is promtool's unit test, tests/deploy/test_alert_rules.py). Slow
(about 1.5 min); skips without ``prometheus``/``promtool`` or kubectl."""

from __future__ import annotations

import asyncio
import json
import math
import re
import subprocess
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pytest

from paiju.tools.botclient import BotError, Client
from paiju.tools.bots import run_bots
from tests.conftest import REPO
from tests.deploy.live_prometheus import Prometheus
from tests.deploy.manifests import render
from tests.deploy.prometheus import Doc, rules_by_name, tool
from tests.fixtures import start_service_process, wait_health
from tests.platform_procs import Platform, running_platform

pytestmark = pytest.mark.slow

GAMES = ["doudizhu", "hunzhan", "shengji", "daa"]
DASHBOARD = REPO / "deploy" / "base" / "monitoring" / "paiju-dashboard.json"

#: What each query of the dashboard returns after the bots played: the label
#: sets of its series (each value a number), or ``None`` where a healthy run
#: may return nothing.
PANELS: dict[str, list[dict[str, str]] | None] = {
    "sum(paiju_gateway_connections)": [{}],
    "max by (state) (paiju_lobby_rooms)":
        [{"state": "idle"}, {"state": "started"}, {"state": "waiting"}],
    "sum by (game) (paiju_table_games_running)": [{"game": g} for g in sorted(GAMES)],
    "sum by (game) (rate(paiju_table_actions_total[1m]))": [{"game": g} for g in sorted(GAMES)],
    "histogram_quantile(0.99, sum by (le) (rate(paiju_table_action_duration_seconds_bucket[5m])))":
        [{}],
    "histogram_quantile(0.5, sum by (le) (rate(paiju_table_action_duration_seconds_bucket[5m])))":
        [{}],
    "histogram_quantile(0.99, sum by (le) "
    "(rate(paiju_gateway_command_duration_seconds_bucket[5m])))": [{}],
    "sum by (result) (rate(paiju_ledger_settlements_total[5m]))":
        [{"result": r} for r in ("applied", "error", "refused", "repeated")],
    'sum(increase(paiju_ledger_settlements_total{result="error"}[5m]))': [{}],
    "sum(rate(paiju_table_settlements_retried_total[5m]))": [{}],
    "sum(rate(paiju_ledger_retries_total[5m])) or vector(0)": [{}],
    "sum(rate(paiju_ledger_coins_moved_total[5m])) * 60": [{}],
    "sum(rate(paiju_ledger_fees_total[5m])) * 60": [{}],
    "sum(rate(paiju_ledger_relief_coins_total[5m])) * 60": [{}],
    # refusals a client earns (NOT_FOUND…) may show; no call failed
    'sum by (grpc_service, grpc_code) (rate(grpc_server_handled_total{grpc_code!="OK"}[5m]))':
        None,
    "min by (job, dependency) (paiju_dependency_up)": [
        {"job": "gateway", "dependency": "nats"}, {"job": "ledger", "dependency": "database"},
        {"job": "ledger", "dependency": "nats"}, {"job": "lobby", "dependency": "database"},
        {"job": "lobby", "dependency": "ledger"}, {"job": "lobby", "dependency": "nats"},
        {"job": "table", "dependency": "database"}, {"job": "table", "dependency": "ledger"},
        {"job": "table", "dependency": "nats"}],
    "sum(rate(paiju_gateway_slow_client_disconnects_total[5m]))": [{}],
    "sum(increase(paiju_table_games_taken_over_total[5m]))": [{}],
    # no takeover yet: no takeover time to rank
    "histogram_quantile(0.99, sum by (le) (rate(paiju_table_takeover_seconds_bucket[5m])))":
        None,
}
#: Metrics the rules name that only appear once something went wrong (a
#: labelled counter whose labels come with the fault); each must be declared
#: in the services' code.
ON_FAULT_ONLY = {"paiju_ledger_retries_total", "paiju_gateway_shed_total"}


@dataclass
class Live:
    platform: Platform
    prometheus: Prometheus
    docs: list[Doc]


@pytest.fixture(scope="module")
def live() -> Iterator[Live]:
    tool("promtool")
    tool("prometheus")
    docs = render("prod")
    with running_platform(replicas={"table": 2}) as p:
        prom = Prometheus(docs, p)
        try:
            prom.start()
            prom.until("Prometheus scraped every instance",
                       lambda: len(prom.query("up == 1")) == len(p.metrics))
            summary = asyncio.run(run_bots(p.gateway_url, GAMES, 1, 1, (0.0, 0.005), seed=36,
                                           show_progress=False))
            assert summary["games_finished"] == {g: 1 for g in GAMES}, summary
            prom.until("Prometheus scraped the games' ends", lambda: prom.query(
                f"sum(paiju_table_games_finished_total) >= {len(GAMES)}"))
            # A game is counted finished as its end begins (settlement, record,
            # GameOver, game_finished) and stops running only after: until
            # Prometheus scrapes every instance running none, a test that looks
            # for the instance running a game of its own may find one of these.
            prom.until("Prometheus scraped every game's end done", lambda: prom.query(
                "sum(paiju_table_games_running) == 0"))
            prom.until("the rules evaluated after them", lambda: prom.query(
                "paiju:slo_game_errors:ratio_rate5m == 0"))
            yield Live(p, prom, docs)
        finally:
            prom.close()


def scrape(port: int) -> bytes:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        body: bytes = r.read()
    return body


def test_promtool_finds_no_naming_problem_in_any_metrics(live: Live) -> None:
    families = {"ledger": "paiju_ledger_settlements_total", "lobby": "paiju_lobby_rooms",
                "table": "paiju_table_action_duration_seconds",
                "gateway": "paiju_gateway_command_duration_seconds"}
    for name, port in live.platform.metrics.items():
        text = scrape(port)
        assert f"# TYPE {families[name.split('-')[0]]} ".encode() in text, name
        proc = subprocess.run([tool("promtool"), "check", "metrics"], input=text,
                              capture_output=True, timeout=60, check=False)
        assert proc.returncode == 0 and not proc.stdout and not proc.stderr, \
            f"{name}: {(proc.stdout + proc.stderr).decode()}"


def test_prometheus_scrapes_each_instance_under_its_services_job(live: Live) -> None:
    jobs = sorted(s["metric"]["job"] for s in live.prometheus.query("up == 1"))
    assert jobs == ["gateway", "ledger", "lobby", "table", "table"]


def values(result: list[dict[str, Any]]) -> list[float]:
    return [float(s["value"][1]) for s in result]


def test_every_dashboard_query_returns_its_series(live: Live) -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    exprs = [t["expr"] for panel in dashboard["panels"] for t in panel["targets"]]
    assert sorted(exprs) == sorted(PANELS), "a panel's query without its expectation here"
    for expr, expected in PANELS.items():
        result = live.prometheus.query(expr)
        if expected is None:
            continue
        def order(m: dict[str, str]) -> list[tuple[str, str]]:
            return sorted(m.items())
        assert sorted((s["metric"] for s in result), key=order) == sorted(expected, key=order), \
            expr
        assert all(math.isfinite(v) for v in values(result)), (expr, result)


def metric_names(expr: str) -> set[str]:
    """The metric and recorded series names ``expr`` reads."""
    return set(re.findall(r"\b(?:paiju|grpc)[a-z0-9_:]*\b(?![(\"])", expr))


def test_every_rule_reads_metrics_paiju_exports_and_none_fires(live: Live) -> None:
    prom = live.prometheus
    known = set(prom.api("label/__name__/values"))
    label_names = set(prom.api("labels"))
    alerts, records = rules_by_name(live.docs)
    code = "\n".join(p.read_text() for p in (REPO / "services").rglob("metrics.py"))
    for name, rule in {**alerts, **records}.items():
        prom.query(rule["expr"])  # Prometheus evaluates it
        for metric in metric_names(rule["expr"]) - known - label_names:
            assert metric in ON_FAULT_ONLY and f'"{metric}"' in code, f"{name} reads {metric}"
    # every objective's ratio has a value. Slow answers count against the
    # action and sign-in objectives, and a loaded machine gives some: those
    # ratios stay below their fast burn's threshold (14.4 times the error
    # budget); no command failed and no game was lost.
    budgets = {"action": 0.01, "signin": 0.001, "game": 0.0}
    for record in records:
        [ratio] = values(prom.query(record))
        objective = record.removeprefix("paiju:slo_").split("_errors:")[0]
        assert ratio == 0.0 or 0.0 < ratio < 14.4 * budgets[objective], (record, ratio)
    assert values(prom.query("sum(paiju_gateway_commands_failed_total)")) == [0.0]
    assert prom.api("alerts")["alerts"] == []  # PaijuGamesVoided among them


async def sign_in(url: str, name: str) -> str:
    """``login`` as ``name`` at ``url``: "ok" or the refusal's code."""
    client = Client(url, lambda ev: None)
    await client.connect()
    try:
        await client.call("login", name=name)
        return "ok"
    except BotError as e:
        return e.code
    finally:
        await client.close()


def test_the_takeover_panel_shows_a_killed_instances_game(live: Live) -> None:
    p, prom = live.platform, live.prometheus
    taken_over = "sum(increase(paiju_table_games_taken_over_total[5m]))"
    assert values(prom.query(taken_over)) == [0.0]
    by_port = {f"127.0.0.1:{port}": name for name, port in p.metrics.items()}
    with ThreadPoolExecutor(1) as pool:
        # one game of 斗地主, slowly enough to be killed in the middle of it
        bots = pool.submit(asyncio.run, run_bots(p.gateway_url, ["doudizhu"], 1, 1, (0.3, 0.6),
                                                 seed=37, show_progress=False))
        [running] = prom.until("a table instance running the game", lambda: prom.query(
            'paiju_table_games_running{game="doudizhu"} > 0'), timeout=60)
        killed = by_port[running["metric"]["instance"]]
        p.procs[killed].kill()  # SIGKILL: no hand-over, the lease runs out
        prom.until("the panel showing the takeover",  # increase() extrapolates: about 1
                   lambda: [v > 0.5 for v in values(prom.query(taken_over))] == [True],
                   timeout=60)
        # the game ends on the instance that took it over
        assert bots.result(timeout=300)["games_finished"] == {"doudizhu": 1}
    p99 = "histogram_quantile(0.99, sum by (le) (rate(paiju_table_takeover_seconds_bucket[5m])))"
    assert all(math.isfinite(v) and v > 0 for v in values(prom.query(p99)))
    p.procs[killed] = start_service_process("table", p.env(killed, {}),
                                            p.data / f"{killed}.log")
    asyncio.run(wait_health(p.addr(killed), timeout=60, proc=p.procs[killed]))
    prom.until("Prometheus scraping it again",
               lambda: len(prom.query("up == 1")) == len(p.metrics))


def test_faults_the_ledger_stopped_then_nats_stopped(live: Live) -> None:
    p, prom = live.platform, live.prometheus
    # The ledger away: a sign-in is answered `unavailable`, counted as failed.
    p.procs["ledger"].terminate()
    p.procs["ledger"].wait(timeout=20)
    assert asyncio.run(sign_in(p.gateway_url, "fault-1")) == "unavailable"
    prom.until("the sign-in objective sees the failed sign-in", lambda: prom.query(
        'paiju:slo_signin_errors:ratio_rate5m > 0'
        ' and on() sum(paiju_gateway_commands_failed_total{cmd="login"}) == 1'))

    def alerting(state: str) -> list[tuple[str, str]]:
        found = [a["labels"] for a in prom.api("alerts")["alerts"]
                 if a["labels"]["alertname"] == "PaijuDependencyDown" and a["state"] == state]
        return sorted((a["job"], a["dependency"]) for a in found)

    # The lobby and both table instances call the ledger: each reports it lost.
    lost_ledger = [("lobby", "ledger"), ("table", "ledger"), ("table", "ledger")]
    prom.until("PaijuDependencyDown pending for the ledger's callers",
               lambda: alerting("pending") == lost_ledger, timeout=30)
    # NATS away: every instance still running reports it down.
    p.nats.stop()
    expected = sorted(lost_ledger + [(job, "nats")
                                     for job in ("gateway", "lobby", "table", "table")])
    prom.until("PaijuDependencyDown pending or firing for every instance",
               lambda: sorted(alerting("pending") + alerting("firing")) == expected, timeout=30)
    # That it pages once its `for: 2m` is waited out is promtool's unit test
    # (deploy/base/monitoring/tests/alerts.yaml), not waited for here.
