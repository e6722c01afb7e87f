"""Self-play speed of every rules engine, and doudizhu against rlcard.

usage: python bench/engines.py [--games N] [--quick] [--seed S]

For every game of ``paiju.rules.ENGINES`` whose module imports, plays N random
self-play games (:func:`paiju.rules.selfplay.play_random`, seeded) and prints
games per second. For doudizhu it also plays N games of rlcard's raw engine
(``rlcard.games.doudizhu.game.DoudizhuGame``) with uniformly random legal
actions (the ``actions`` list that its ``init_game`` / ``step`` return, which
is what rlcard's env uses as its legal actions), and prints both rates and the
ratio. Output: plain lines, then one JSON line with every number.

The goals (docs/rules/doudizhu.md): ≥ 500 games/s for every engine, and
doudizhu ≥ 5× rlcard. rlcard is the ``bench`` extra of pyproject.toml
(``pip install rlcard``); without it the ratio is reported as null.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from paiju.rules import ENGINES
from paiju.rules.selfplay import play_random


@contextmanager
def _progress(label: str, total: int, show: bool) -> Iterator[Callable[[], None]]:
    """A rich progress bar on stderr for long runs; a no-op otherwise."""
    if not show:
        yield lambda: None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(label, total=total)
        yield lambda: progress.advance(task, 1)


def bench_paiju(name: str, games: int, seed: int, show: bool) -> float:
    """Games per second of random self-play of ``name``."""
    rng = random.Random(seed)
    with _progress(f"paiju {name}", games, show) as tick:
        start = time.perf_counter()
        for _ in range(games):
            play_random(name, rng)
            tick()
        elapsed = time.perf_counter() - start
    return games / elapsed


def bench_rlcard(games: int, seed: int, show: bool) -> float | None:
    """Games per second of rlcard's DoudizhuGame with random legal actions, or
    ``None`` when rlcard is not installed."""
    try:
        import numpy as np
        from rlcard.games.doudizhu.game import DoudizhuGame
    except ImportError:
        return None
    rng = random.Random(seed)
    game = DoudizhuGame()
    with _progress("rlcard doudizhu", games, show) as tick:
        start = time.perf_counter()
        for i in range(games):
            game.np_random = np.random.RandomState(seed + i)
            state, _ = game.init_game()
            while not game.is_over():
                state, _ = game.step(rng.choice(state["actions"]))
            tick()
        elapsed = time.perf_counter() - start
    return games / elapsed


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; exit status 0 (the numbers are the output)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=None, help="games per engine (2000)")
    parser.add_argument("--quick", action="store_true", help="200 games per engine")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    games = args.games or (200 if args.quick else 2000)
    show = games >= 1000 and sys.stderr.isatty()
    out: dict[str, Any] = {"games": games, "engines": {}}
    for name, target in ENGINES.items():
        try:
            importlib.import_module(target.split(":")[0])
        except ImportError as e:
            print(f"{name}: skipped ({e})")
            out["engines"][name] = None
            continue
        rate = bench_paiju(name, games, args.seed, show)
        out["engines"][name] = round(rate, 1)
        print(f"{name}: paiju {rate:.0f} games/s")
        if name == "doudizhu":
            rl = bench_rlcard(games, args.seed, show)
            out["rlcard_doudizhu"] = None if rl is None else round(rl, 1)
            if rl is None:
                print("doudizhu: rlcard not installed (pip install rlcard); no ratio")
                out["doudizhu_ratio"] = None
            else:
                ratio = rate / rl
                out["doudizhu_ratio"] = round(ratio, 2)
                print(f"doudizhu: paiju {rate:.0f} games/s, rlcard {rl:.0f} games/s, "
                      f"ratio {ratio:.1f}×")
    print(json.dumps(out, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
