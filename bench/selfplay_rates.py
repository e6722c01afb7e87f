"""Random self-play games per second of every engine, redeals counted apart.

usage: python bench/selfplay_rates.py [--games N] [--quick] [--gc service|python]

For every game (shengji once per deck count, 1 to 4) it plays random
self-play deals (:func:`paiju.rules.selfplay.play_random`, seeded) until
``N`` complete games were played, and times each deal in CPU seconds of this
process (one core). A deal that ends in a redeal (nobody bid / declared) is
counted and timed apart: the game rate is complete games per CPU second
spent on complete games, and the redeal rate is given beside it, as is the
rate of all deals. doudizhu is measured side by side with rlcard's raw
``DoudizhuGame`` (random legal actions, the same number of games, the two
interleaved in 10 rounds; :func:`bench.engines.rlcard_runner`).

The engines run inside a service process (the table), whose garbage
collector :func:`paiju.runtime.service.tune_gc` sets once serving (what was made
at start frozen, the young generation collected every 10,000 allocations);
the bench measures under that setting after its imports, or under
CPython's default collector with ``--gc python``.

Prints one line per engine with the goal (500 games/s; doudizhu 5× rlcard),
then a JSON line (with ``"gc"``: ``service`` or ``python``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from paiju.rules.selfplay import play_random

GOAL_RATE = 500.0
GOAL_RLCARD_RATIO = 5.0
#: (label, game, options) measured.
ENGINES: list[tuple[str, str, dict[str, Any]]] = [
    ("doudizhu", "doudizhu", {}),
    ("hunzhan", "hunzhan", {}),
    *[(f"shengji {d} deck{'s' if d > 1 else ''}", "shengji", {"decks": d}) for d in (1, 2, 3, 4)],
    ("daa", "daa", {}),
]


@dataclass
class Rates:
    """Counts and CPU seconds of complete games and of redeals."""

    games: int = 0
    game_seconds: float = 0.0
    redeals: int = 0
    redeal_seconds: float = 0.0

    def add(self, other: Rates) -> None:
        """Add ``other``'s counts and times."""
        self.games += other.games
        self.game_seconds += other.game_seconds
        self.redeals += other.redeals
        self.redeal_seconds += other.redeal_seconds

    @property
    def per_second(self) -> float:
        """Complete games per CPU second spent on complete games."""
        return self.games / self.game_seconds if self.game_seconds else 0.0

    @property
    def all_per_second(self) -> float:
        """Complete games per CPU second, redeals' time included."""
        total = self.game_seconds + self.redeal_seconds
        return self.games / total if total else 0.0

    def json(self) -> dict[str, Any]:
        """The figures as JSON."""
        return {"games": self.games, "games_per_s": round(self.per_second, 1),
                "redeals": self.redeals,
                "redeals_per_s": round(self.redeals / self.redeal_seconds, 1)
                if self.redeal_seconds else None,
                "games_per_s_with_redeals": round(self.all_per_second, 1)}


def play(game: str, options: dict[str, Any], games: int, rng: random.Random) -> Rates:
    """Play until ``games`` complete games; their counts and CPU times."""
    r = Rates()
    clock = time.process_time
    while r.games < games:
        t = clock()
        g, _ = play_random(game, rng, options)
        dt = clock() - t
        if g.result().kind == "redeal":
            r.redeals += 1
            r.redeal_seconds += dt
        else:
            r.games += 1
            r.game_seconds += dt
    return r


def doudizhu_vs_rlcard(games: int, seed: int) -> tuple[Rates, float | None]:
    """paiju's doudizhu and rlcard's DoudizhuGame over ``games`` games each,
    interleaved in rounds; (paiju rates, rlcard games/s or None)."""
    from bench.engines import rlcard_runner

    rl = rlcard_runner()
    rounds = 10 if games >= 10 else 1
    per = max(1, games // rounds)
    rng, rrng = random.Random(seed), random.Random(seed)
    ours = Rates()
    rl_seconds = 0.0
    for k in range(rounds):
        ours.add(play("doudizhu", {}, per, rng))
        if rl is not None:
            rl_seconds += rl(per, rrng, seed + k * per, lambda: None)
    return ours, (per * rounds / rl_seconds if rl is not None and rl_seconds else None)


def run(games: int, seed: int = 1) -> dict[str, Any]:
    """Measure every engine; print one line each; the JSON figures. A progress
    bar (rich, on stderr) shows which engine runs when stderr is a terminal."""
    from rich.console import Console
    from rich.progress import Progress

    out: dict[str, Any] = {"games": games, "engines": {}}
    with Progress(console=Console(stderr=True), transient=True,
                  disable=not sys.stderr.isatty()) as progress:
        task = progress.add_task("engines", total=len(ENGINES))
        for label, game, options in ENGINES:
            progress.update(task, description=f"engine {label}")
            out["engines"][label] = _one(label, game, options, games, seed)
            progress.advance(task)
    return out


def _one(label: str, game: str, options: dict[str, Any], games: int,
         seed: int) -> dict[str, Any]:
    """Measure one engine; print its line; its figures."""
    if game == "doudizhu":
        r, rl = doudizhu_vs_rlcard(games, seed)
    else:
        r, rl = play(game, options, games, random.Random(seed)), None
    fig = r.json()
    rate = r.per_second
    verdict = "met" if rate >= GOAL_RATE else "NOT met"
    line = (f"engine {label}: {rate:.0f} games/s (goal ≥ {GOAL_RATE:.0f}: {verdict}); "
            f"{r.redeals} redeals apart ({fig['redeals_per_s'] or 0:.0f}/s), "
            f"{r.all_per_second:.0f} games/s counting redeals' time")
    if game == "doudizhu":
        fig["rlcard_games_per_s"] = None if rl is None else round(rl, 1)
        if rl is None:
            line += "; rlcard not installed: no baseline"
        else:
            ratio = rate / rl
            fig["ratio_vs_rlcard"] = round(ratio, 2)
            line += (f"; baseline rlcard DoudizhuGame {rl:.0f} games/s, ratio {ratio:.1f}× "
                     f"(goal ≥ {GOAL_RLCARD_RATIO:.0f}×: "
                     f"{'met' if ratio >= GOAL_RLCARD_RATIO else 'NOT met'})")
    print(line, flush=True)
    return fig


def main(argv: list[str] | None = None) -> int:
    """Run the engine rates; exit status 0 (the numbers are the output)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=None, help="complete games each (1000)")
    parser.add_argument("--quick", action="store_true", help="50 games each")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--gc", choices=("service", "python"), default="service",
                        help="the collector's setting: the services' (tune_gc) or CPython's")
    args = parser.parse_args(argv)
    games = args.games or (50 if args.quick else 1000)
    if args.gc == "service":
        from paiju.runtime.service import tune_gc

        tune_gc()
    print(json.dumps({"bench": "engines", "gc": args.gc, **run(games, args.seed)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
