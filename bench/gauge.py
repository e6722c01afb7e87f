"""A machine gauge: a fixed pure-Python workload timed in CPU time, so that CPU
figures measured on different machines can be compared.

usage: python bench/gauge.py [--runs 7]

:func:`workload` does the same work on every machine and every version of
paiju (it imports nothing of paiju): sorting, dict and string work and JSON
encoding and decoding, the kinds of work the services spend their CPU on,
on one core. :func:`gauge_ms` is its CPU milliseconds (the least of a few
runs: the least disturbed). A figure in CPU milliseconds divided by the gauge
is in *gauges*; bench/load.py prints CPU per action in milligauges (mG) beside
milliseconds, so a machine twice as slow shows twice the milliseconds but
about the same milligauges.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any

#: The workload's seed (fixed: the same data on every machine).
SEED = 20261204
#: Numbers the workload sorts, counts and encodes.
SIZE = 50_000


def workload() -> int:
    """One run of the fixed workload; returns a checksum (so nothing is
    optimised away, and a changed workload shows in the checksum)."""
    rng = random.Random(SEED)
    data = [rng.randrange(1_000_000) for _ in range(SIZE)]
    total = 0
    for shift in range(4):
        total += sorted(data, key=lambda x: (x >> shift) & 0xFFFF)[SIZE // 2]
    counts: dict[int, int] = {}
    for i, x in enumerate(data):
        counts[x % 4099] = counts.get(x % 4099, 0) + i
    text = json.dumps({"cards": [f"{x % 13}{'SHCD'[x % 4]}" for x in data], "counts": counts})
    back: dict[str, Any] = json.loads(text)
    total += len(back["cards"]) + sum(back["counts"].values())
    total += len(" ".join(str(x) for x in data).split())
    return int(total)


def gauge_ms(runs: int = 7) -> float:
    """The workload's CPU milliseconds on this machine: the least of ``runs``
    runs (``time.process_time``), rounded to 0.1 ms."""
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        workload()
        best = min(best, time.process_time() - start)
    return round(best * 1000, 1)


def in_milligauges(cpu_ms: float, gauge: float) -> float:
    """``cpu_ms`` CPU milliseconds in milligauges (thousandths of one run of
    the workload on the same machine), rounded to 0.1."""
    return round(1000 * cpu_ms / gauge, 1)


def main(argv: list[str] | None = None) -> int:
    """Print the gauge of this machine."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args(argv)
    print(f"gauge: {gauge_ms(args.runs)} CPU ms per run of the fixed workload "
          f"(checksum {workload()})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
