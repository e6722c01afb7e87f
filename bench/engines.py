"""Self-play speed of every rules engine, and doudizhu against rlcard.

usage: python bench/engines.py [--games N] [--quick] [--seed S]

For every game of ``paiju.rules.ENGINES`` whose module imports, plays N random
self-play games (:func:`paiju.rules.selfplay.play_random`, seeded) and prints
games per second. For doudizhu it also plays N games of rlcard's raw engine
(``rlcard.games.doudizhu.game.DoudizhuGame``) with uniformly random legal
actions (the ``actions`` list that its ``init_game`` / ``step`` return, which
is what rlcard's env uses as its legal actions), and prints both rates and the
ratio (both measured in interleaved rounds, in games per CPU second of the
process). Output: plain lines, then one JSON line with every number.

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


#: Time per CPU second of this process, so that other load on the machine
#: skews the rates less (the ratio is also measured interleaved, see below).
_clock = time.process_time


def run_paiju(name: str, games: int, rng: random.Random, tick: Callable[[], None]) -> float:
    """Seconds to play ``games`` random self-play games of ``name``."""
    start = _clock()
    for _ in range(games):
        play_random(name, rng)
        tick()
    return _clock() - start


def rlcard_runner() -> Callable[[int, random.Random, int, Callable[[], None]], float] | None:
    """A function timing rlcard's DoudizhuGame, or ``None`` without rlcard."""
    try:
        import numpy as np
        from rlcard.games.doudizhu.game import DoudizhuGame
    except ImportError:
        return None
    game = DoudizhuGame()

    def run(games: int, rng: random.Random, seed: int, tick: Callable[[], None]) -> float:
        start = _clock()
        for i in range(games):
            game.np_random = np.random.RandomState(seed + i)
            state, _ = game.init_game()
            while not game.is_over():
                state, _ = game.step(rng.choice(state["actions"]))
            tick()
        return _clock() - start

    return run


def bench_doudizhu(games: int, seed: int, show: bool) -> tuple[float, float | None]:
    """paiju and rlcard doudizhu rates, measured in interleaved rounds (10 rounds
    of games/10 each) so that a change of machine load hits both alike."""
    rl = rlcard_runner()
    rounds = 10 if games >= 10 else 1
    per = max(1, games // rounds)
    prng, rrng = random.Random(seed), random.Random(seed)
    t_paiju = t_rl = 0.0
    with _progress("doudizhu: paiju and rlcard", per * rounds * (2 if rl else 1), show) as tick:
        for k in range(rounds):
            t_paiju += run_paiju("doudizhu", per, prng, tick)
            if rl is not None:
                t_rl += rl(per, rrng, seed + k * per, tick)
    n = per * rounds
    return n / t_paiju, (n / t_rl if rl is not None else None)


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
        if name == "doudizhu":
            rate, rl = bench_doudizhu(games, args.seed, show)
        else:
            with _progress(f"paiju {name}", games, show) as tick:
                rate = games / run_paiju(name, games, random.Random(args.seed), tick)
        out["engines"][name] = round(rate, 1)
        print(f"{name}: paiju {rate:.0f} games/s")
        if name == "doudizhu":
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
