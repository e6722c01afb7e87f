"""The benchmark suite keeps working: ``python -m bench --quick`` runs every
part and prints its figures with their baselines (no timing is asserted: the
numbers are the suite's output, not a test's), plus the pure helpers of
bench/load.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench import gauge, load, load_report, run

REPO = Path(__file__).resolve().parent.parent.parent


@pytest.mark.slow  # the whole quick suite: about 60 s
@pytest.mark.timeout(600)
def test_quick_suite_runs_and_prints_every_figure(tmp_path: Path) -> None:
    out_json = tmp_path / "bench.json"
    proc = subprocess.run([sys.executable, "-m", "bench", "--quick", "--json", str(out_json)],
                          cwd=REPO, capture_output=True, text=True, timeout=580,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr[-3000:]
    # engines: each game (shengji per deck count), doudizhu beside rlcard when installed
    for label in ("doudizhu", "hunzhan", "shengji 1 deck", "shengji 2 decks",
                  "shengji 3 decks", "shengji 4 decks", "daa"):
        assert f"engine {label}: " in out
    assert "games/s" in out and "redeals apart" in out
    # worst positions: the slowest table call per game against the 20 ms goal
    for game in ("hunzhan", "shengji", "daa", "doudizhu"):
        assert f"worst {game}" in out
    # the hunzhan worst positions through a running table: the instance's longest gap
    for label in ("baseline: other games alone", "hunzhan void vs 7-pair run",
                  "hunzhan void vs 6-pair run"):
        assert f"worst table, {label}: longest gap" in out
    # the platform: the bots' round trip beside bare NATS and gRPC, memory of each service
    assert "platform 5 tables (19 clients" in out
    assert "baseline bare NATS request-reply" in out and "bare gRPC unary" in out
    assert "RSS MiB ledger" in out and "gateway" in out
    assert "1 table and 1 gateway instances, uvloop" in out
    assert "CPU ms per accepted action: ledger" in out
    assert "the same in milligauges (gauge " in out
    assert "after the bots stopped: a fresh sign-in answered in " in out
    # the ledger: figures beside plain SQL, or the reason it was skipped
    assert ("ledger  1 clients:" in out and "plain SQL" in out) or "ledger: skipped" in out
    assert "== summary" in out
    figures = json.loads(out_json.read_text())
    platform = figures["platform"]["results"][0]
    assert "failed" not in platform, platform
    assert platform["tables"] == 5 and platform["clients"] == 19
    # every table played its game to the end (2 doudizhu, one of each other game)
    assert platform["games_finished"] == {"doudizhu": 2, "hunzhan": 1, "shengji": 1, "daa": 1}
    assert platform["rtt_ms"]["n"] > 0
    assert set(platform["rss_mb"]) == {"ledger", "table", "lobby", "gateway", "nats"}
    assert set(platform["cpu_ms_per_action"]) == {"ledger", "table", "lobby", "gateway", "nats",
                                                  "bots"}
    assert platform["gauge_ms"] > 0
    after = platform["sign_in_after"]  # a quiet platform answers the first try
    assert after["met"] and after["answers"].get("ok", 0) >= 1 and after["last_s"] < 1.0, after
    assert set(platform["cpu_mg_per_action"]) == set(platform["cpu_ms_per_action"])


def test_rooms_file_shares_tables_among_the_games(tmp_path: Path) -> None:
    rooms = load.rooms_file(5, tmp_path / "rooms.yaml")
    assert rooms == [("bdou000-01", "doudizhu", 3), ("bhun000-01", "hunzhan", 4),
                     ("bshe000-01", "shengji", 4), ("bdaa000-01", "daa", 5),
                     ("bdou000-02", "doudizhu", 3)]
    # 13 tables of one game need three servers of 6 rooms
    many = load.rooms_file(52, tmp_path / "many.yaml")
    assert [r for r, g, _ in many if g == "hunzhan"][-1] == "bhun002-01"
    assert sum(s for _, _, s in many) == 13 * (3 + 4 + 4 + 5)


def test_profile_summary_leaves_idle_samples_out(tmp_path: Path) -> None:
    raw = tmp_path / "p.txt"
    raw.write_text(
        "main (a.py:1);EpollSelector.select (selectors.py:468) 70\n"
        "main (a.py:1);Session.send (services/gateway/application/session.py:144) 20\n"
        "main (a.py:1);Session.handle (services/gateway/application/session.py:167);"
        "dumps (json/__init__.py:234) 10\n")
    lines = load.summarise_profile(raw)
    assert lines[0] == "30 busy samples (70 idle left out); own time:"
    assert "   66.7%  Session.send (services/gateway/application/session.py:144)" in lines
    assert "   33.3%  dumps (json/__init__.py:234)" in lines
    assert "   33.3%  Session.handle (services/gateway/application/session.py:167)" in lines


def test_summary_gives_each_figure_with_its_baseline() -> None:
    lines = run.summary({
        "engines": {"engines": {"doudizhu": {"games_per_s": 1500.0, "rlcard_games_per_s": 300.0,
                                             "ratio_vs_rlcard": 5.0}}},
        "ledger": {"results": [{"clients": 4, "ledger_per_s": 200.0,
                                "plain_sql_per_s": 800.0, "ratio": 0.25}]},
    })
    assert lines == [
        "engine doudizhu             1500 games/s (goal ≥ 500), rlcard 300/s, ratio 5.0× "
        "(goal ≥ 5×)",
        "ledger  4 clients: 200.0 settlements/s, plain SQL 800.0/s, ratio 0.25",
    ]


def test_metrics_summary_names_refused_and_slow_calls() -> None:
    from bench import load_store

    gateway = "\n".join([
        "# HELP grpc_client_handled_total RPCs completed by the client.",
        'grpc_client_handled_total{grpc_code="OK",grpc_method="Sit",grpc_service="s",'
        'grpc_type="unary"} 1990.0',
        'grpc_client_handled_total{grpc_code="DEADLINE_EXCEEDED",grpc_method="Sit",'
        'grpc_service="s",grpc_type="unary"} 10.0',
        'grpc_client_handled_total{grpc_code="NOT_FOUND",grpc_method="WhereIs",'
        'grpc_service="s",grpc_type="unary"} 2000.0',
        'paiju_gateway_errors_total{code="unavailable"} 10.0',
        'paiju_gateway_errors_total{code="busy"} 7.0',
        'paiju_gateway_shed_total{reason="calls_in_flight"} 7.0',
        'paiju_gateway_command_duration_seconds_bucket{cmd="sit",le="0.5"} 1900.0',
        'paiju_gateway_command_duration_seconds_bucket{cmd="sit",le="1.0"} 1950.0',
        'paiju_gateway_command_duration_seconds_bucket{cmd="sit",le="5.0"} 1990.0',
        'paiju_gateway_command_duration_seconds_bucket{cmd="sit",le="+Inf"} 2000.0',
        'paiju_gateway_command_duration_seconds_bucket{cmd="ping",le="1.0"} 5.0',
        'paiju_gateway_command_duration_seconds_bucket{cmd="ping",le="+Inf"} 5.0',
    ])
    lobby = ('grpc_server_handled_total{grpc_code="OK",grpc_method="Sit",grpc_service="s",'
             'grpc_type="unary"} 2000.0\n')
    summary = load_store.summarise({"gateway": gateway, "lobby": lobby})
    assert summary == {"calls_failed": {"gateway client Sit DEADLINE_EXCEEDED": 10},
                       "gateway_errors": {"unavailable": 10, "busy": 7},
                       "gateway_shed": {"calls_in_flight": 7},
                       "slow": {"gateway sit": [50, 10, 2000]}}


def test_sqlite_store_when_asked_or_when_no_postgres_answers() -> None:
    from bench import load_store

    said: list[str] = []
    assert load_store.choose_store("sqlite", {}, said.append).label == "sqlite"
    # a port nothing listens on: auto falls back to SQLite and says so
    nowhere = {"PAIJU_TEST_POSTGRES_URL": "postgresql://postgres@127.0.0.1:9/test"}
    store = load_store.choose_store("auto", nowhere, said.append)
    assert (store.url, store.label) == (None, "sqlite")
    assert said == ["no PostgreSQL at 127.0.0.1:9: SQLite"]
    with pytest.raises(RuntimeError):
        load_store.choose_store("postgres", nowhere, said.append)


def _size(tables: int, p99: float | None, errors: dict[str, int]) -> dict[str, Any]:
    return {"tables": tables, "rtt_ms": {"p99": p99}, "errors": errors, "gauge_ms": 80.0}


def test_capacity_is_the_largest_size_that_met_the_goal() -> None:
    results = [_size(50, 12.0, {}), _size(100, 40.0, {"not_your_turn": 3}),
               _size(200, 99.0, {}), _size(300, 140.0, {}), {"tables": 400, "failed": "boom"}]
    # 100 tables: a move that raced the game is no platform error; 300 misses p99 < 100 ms
    assert [load_report.meets_goal(r) for r in results] == [True, True, True, False, False]
    assert load.capacity(results) == {"tables": 200, "gauge_ms": 80.0, "tables_per_gauge": 16.0}
    assert not load_report.meets_goal(_size(50, 12.0, {"unavailable": 1}))
    # players turned away busy: no platform error, but the size is past capacity
    turned_away = _size(50, 12.0, {"busy": 5, "declare_too_weak": 1})
    assert load_report.platform_errors(turned_away) == 0
    assert not load_report.meets_goal(turned_away)
    assert load.capacity([_size(50, 300.0, {})])["tables"] == 0


def test_the_gauge_workload_is_fixed_and_its_units_scale_with_it() -> None:
    # the workload must not change: milligauges compare only across the same workload
    assert gauge.workload() == 1252706520
    assert gauge.gauge_ms(runs=1) > 0
    assert gauge.in_milligauges(4.4, 110.0) == 40.0
