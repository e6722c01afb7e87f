"""The whole benchmark suite in one command: engines, platform under load, ledger.

usage: python -m bench [--quick] [--only engines,worst,platform,ledger] [--json FILE]
       python bench/run.py [same options]

Runs, in order:

1. engines (:mod:`bench.selfplay_rates`): random self-play games per second of
   every engine (shengji per deck count, redeals apart), doudizhu beside
   rlcard's ``DoudizhuGame``; 1,000 complete games each (``--quick``: 50).
2. worst (:mod:`bench.worst`): the slowest engine call the table makes, per
   game, in its named worst positions and a seeded random search (40 deals
   per game; ``--quick``: 8), against the 20 ms goal; then (:mod:`bench.worst_table`)
   the hunzhan worst positions played through a running table instance
   beside other games, and the instance's longest unresponsive gap (≤ 50 ms).
3. platform (:mod:`bench.load`): bots against a fresh platform at 50, 200 and
   500 tables (think 0.5–2 s, a 60 s window each), beside a bare NATS
   request-reply and a bare gRPC unary call; ``--quick``: 5 tables, one game
   each, no thinking.
4. ledger (``bench/ledger.py``): settlements per second through the ledger on
   PostgreSQL with 1, 4 and 16 clients beside plain SQL transactions of the
   same shape (four round trips, and pipelined in two as the ledger's);
   ``--quick``: 1 client, 1 s phases. Skipped, saying why, when PostgreSQL
   (``PAIJU_TEST_POSTGRES_URL``, default postgresql://postgres@127.0.0.1:5432/test)
   cannot be reached.

Every figure is printed with its baseline and ratio as it is measured, then a
summary of every figure against its goal, then (``--json``) all numbers.
Exit status 0 when the suite ran (goals missed are figures, not failures);
1 when a part could not run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform as pyplatform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PARTS = ("engines", "worst", "platform", "ledger")
DEFAULT_PG = "postgresql://postgres@127.0.0.1:5432/test"


def _heading(text: str) -> None:
    print(f"\n== {text} ==", flush=True)


def machine() -> dict[str, Any]:
    """The machine the figures come from: cores, CPU model, memory, Python."""
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
        mem_kb = next(int(line.split()[1]) for line in
                      Path("/proc/meminfo").read_text().splitlines()
                      if line.startswith("MemTotal:"))
    except (OSError, StopIteration):
        mem_kb = 0
    return {"cores": os.cpu_count(), "cpu": model or pyplatform.processor(),
            "memory_gib": round(mem_kb / 1024**2, 1), "python": pyplatform.python_version(),
            "load_average": [round(x, 2) for x in os.getloadavg()]}


def run_engines(quick: bool) -> dict[str, Any]:
    """Part 1 (see the module docstring)."""
    from bench import selfplay_rates

    return selfplay_rates.run(50 if quick else 1000)


def run_worst(quick: bool) -> dict[str, Any]:
    """Part 2 (see the module docstring)."""
    from bench import worst

    r = worst.run(8 if quick else 40, 19)
    for line in worst.report(r):
        print(line, flush=True)
    from bench import worst_table

    r["table"] = asyncio.run(worst_table.bench(untuned=not quick))
    return r


def run_platform(quick: bool, profile: Path | None) -> dict[str, Any]:
    """Part 3 (see the module docstring)."""
    from bench import load

    show = sys.stderr.isatty()
    if quick:
        sizes = [load.Size(5, (0.0, 0.0), None, 1, 2, profile)]
    else:
        sizes = [load.Size(t, (0.5, 2.0), 60.0, 1, 3, profile) for t in (50, 200, 500)]
    results = load.run_sizes(sizes, show, stop_at_miss=False)
    return {"results": results}


def postgres_unreachable(url: str) -> str | None:
    """Why PostgreSQL at ``url`` cannot be used, or ``None`` when it answers."""
    try:
        import asyncpg  # type: ignore[import-untyped]
        from sqlalchemy.engine import make_url
    except ImportError as e:
        return str(e)
    u = make_url(url)

    async def probe() -> None:
        conn = await asyncpg.connect(user=u.username, password=u.password, host=u.host,
                                     port=u.port or 5432, database=u.database, timeout=3)
        await conn.close()

    try:
        asyncio.run(asyncio.wait_for(probe(), 5))
    except Exception as e:
        return f"{type(e).__name__}: {e}"
    return None


def run_ledger(quick: bool) -> dict[str, Any]:
    """Part 4: ``bench/ledger.py`` as a process; its figures."""
    url = os.environ.get("PAIJU_TEST_POSTGRES_URL", DEFAULT_PG)
    why = postgres_unreachable(url)
    if why is not None:
        print(f"ledger: skipped, PostgreSQL unreachable at {url} ({why})", flush=True)
        return {"skipped": why}
    script = ROOT / "bench" / "ledger.py"
    if not script.exists():
        print("ledger: skipped, bench/ledger.py is missing", flush=True)
        return {"skipped": "bench/ledger.py missing"}
    args = [sys.executable, str(script), "--url", url]
    args += ["--clients", "1", "--seconds", "1"] if quick else ["--clients", "1,4,16"]
    proc = subprocess.run(args, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    figures: dict[str, Any] = {}
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            figures = json.loads(line)
            continue
        print(f"ledger {line}", flush=True)
    if proc.returncode != 0:
        raise RuntimeError(f"bench/ledger.py exited with {proc.returncode}")
    return figures


def summary(results: dict[str, Any]) -> list[str]:
    """Every figure against its goal, one line each."""
    from bench import load

    lines = []
    eng = results.get("engines", {}).get("engines", {})
    for label, f in eng.items():
        extra = ""
        if "ratio_vs_rlcard" in f:
            extra = (f", rlcard {f['rlcard_games_per_s']:.0f}/s, ratio "
                     f"{f['ratio_vs_rlcard']:.1f}× (goal ≥ 5×)")
        lines.append(f"engine {label:16} {f['games_per_s']:8.0f} games/s (goal ≥ 500){extra}")
    if "games" in results.get("worst", {}):
        from bench import worst

        lines += worst.report(results["worst"])
        for label, t in results["worst"].get("table", {}).get("runs", {}).items():
            lines.append(f"worst table, {label}: longest gap {t['longest_gap_ms']:.1f} ms "
                         f"(goal ≤ 50 ms; the loop's own CPU ≤ {t['longest_gap_cpu_ms']:.1f} "
                         "ms between wake-ups)")
    for r in results.get("platform", {}).get("results", []):
        if "failed" in r:
            lines.append(f"platform {r['tables']:>3} tables: FAILED {r['failed']}")
            continue
        rtt, nats = r["rtt_ms"], r["nats_rtt_ms"]
        grpc_p50 = r["grpc_rtt_ms"]["p50"]
        errs = load.platform_errors(r)
        lines.append(
            f"platform {r['tables']:>3} tables {r['clients']:>4} clients: p50 {rtt['p50']} ms "
            f"p99 {rtt['p99']} ms (goal p99 < 100 ms), {r['actions_per_s']} actions/s, "
            f"errors {errs}; bare NATS p50 {nats['p50']} ms, bare gRPC p50 {grpc_p50} ms, "
            f"ratio p50 {_ratio(rtt['p50'], nats['p50'])} / {_ratio(rtt['p50'], grpc_p50)}")
    led = results.get("ledger", {})
    if "skipped" in led:
        lines.append(f"ledger: skipped ({led['skipped']})")
    for row in led.get("results", []):
        line = (f"ledger {row['clients']:>2} clients: {row['ledger_per_s']} settlements/s, "
                f"plain SQL {row['plain_sql_per_s']}/s, ratio {row['ratio']:.2f}")
        if "ratio_pipelined" in row:
            line += (f"; pipelined {row['plain_sql_pipelined_per_s']}/s, "
                     f"ratio {row['ratio_pipelined']:.2f}")
        lines.append(line)
    return lines


def _ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.0f}×" if a is not None and b else "n/a"


def main(argv: list[str] | None = None) -> int:
    """Run the suite (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes (CI)")
    parser.add_argument("--only", default=",".join(PARTS), help="parts to run")
    parser.add_argument("--json", type=Path, default=None, help="write every number here")
    parser.add_argument("--profile", type=Path, default=None,
                        help="py-spy the gateway, table and lobby under load into this folder")
    args = parser.parse_args(argv)
    from bench.load import _exit_on_sigterm

    _exit_on_sigterm()
    parts = [p.strip() for p in args.only.split(",") if p.strip()]
    unknown = set(parts) - set(PARTS)
    if unknown:
        parser.error(f"unknown parts {sorted(unknown)}; choose from {', '.join(PARTS)}")
    m = machine()
    print(f"paiju bench{' (quick)' if args.quick else ''}: {m['cores']} cores ({m['cpu']}), "
          f"{m['memory_gib']} GiB, Python {m['python']}, load average {m['load_average']}",
          flush=True)
    results: dict[str, Any] = {"machine": m, "quick": args.quick}
    status = 0
    started = time.perf_counter()
    runners = {"engines": lambda: run_engines(args.quick),
               "worst": lambda: run_worst(args.quick),
               "platform": lambda: run_platform(args.quick, args.profile),
               "ledger": lambda: run_ledger(args.quick)}
    for part in parts:
        _heading(part)
        try:
            results[part] = runners[part]()
        except Exception as e:
            print(f"{part}: FAILED ({type(e).__name__}: {e})", flush=True)
            results[part] = {"failed": str(e)}
            status = 1
    _heading(f"summary ({time.perf_counter() - started:.0f} s)")
    for line in summary(results):
        print(line, flush=True)
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=1, ensure_ascii=False), encoding="utf-8")
    return status


if __name__ == "__main__":
    sys.exit(main())
