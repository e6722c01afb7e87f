"""Engine speed before and after a change, in one run: bench/selfplay_rates.py's
self-play of every engine, alternated between two checkouts.

usage: python bench/selfplay_ab.py --before DIR [--after DIR] [--games N] [--rounds R]

``DIR`` is a checkout of the code (e.g. ``git archive main | tar -x -C DIR``);
``--after`` defaults to this one. Each round plays ``N`` complete games of
every engine in a fresh process per checkout (the order alternates from round
to round, so that the machine's load weighs on both alike), with that
checkout's own paiju imported (an editable install of this one set aside)
and its own games: ``PAIJU_GAMES`` names the modules of the checkout's
``paiju.games`` entry points (its pyproject.toml), so that a checkout from
before a move of the engines runs its own.
Prints each engine's complete games per CPU second before and after over all
rounds and their ratio, then a JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Run in a child process: argv = checkout, games, seed; prints
#: {label: [games, cpu seconds]}.
CHILD = r"""
import json, random, sys
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
tree, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sys.path.insert(0, tree)
import bench.selfplay_rates as b
import paiju.rules as rules
assert b.__file__.startswith(tree) and rules.__file__.startswith(tree), (b.__file__, tree)
out = {}
for label, game, options in b.ENGINES:
    r = b.play(game, options, n, random.Random(seed))
    out[label] = [r.games, r.game_seconds]
print(json.dumps(out))
"""


def game_modules(tree: Path) -> str:
    """``PAIJU_GAMES`` for checkout ``tree``: the modules its pyproject.toml's
    ``paiju.games`` entry points name, comma separated."""
    project = tomllib.loads((tree / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    targets = project["entry-points"]["paiju.games"].values()
    return ",".join(target.split(":")[0] for target in targets)


def run(before: Path, after: Path, games: int, rounds: int) -> dict[str, dict[str, float]]:
    """``{label: {"before", "after", "ratio"}}`` in games per CPU second."""
    trees = {"before": before, "after": after}
    totals: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
    for k in range(rounds):
        order = ["before", "after"] if k % 2 == 0 else ["after", "before"]
        for side in order:
            env = {**os.environ, "PAIJU_GAMES": game_modules(trees[side])}
            out = subprocess.run([sys.executable, "-c", CHILD, str(trees[side]), str(games),
                                  str(k + 1)], capture_output=True, text=True, check=True,
                                 env=env).stdout
            for label, (n, seconds) in json.loads(out).items():
                t = totals[side].setdefault(label, [0.0, 0.0])
                t[0] += n
                t[1] += seconds
            print(f"round {k + 1}/{rounds}: {side} done", file=sys.stderr, flush=True)
    figures = {}
    for label, (n, s) in totals["before"].items():
        b = n / s
        a = totals["after"][label][0] / totals["after"][label][1]
        figures[label] = {"before": round(b, 1), "after": round(a, 1), "ratio": round(a / b, 3)}
    return figures


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, run, print."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--after", type=Path, default=ROOT)
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=4)
    args = ap.parse_args(argv)
    figures = run(args.before.resolve(), args.after.resolve(), args.games, args.rounds)
    print(f"{'engine':18} {'before g/s':>10} {'after g/s':>10} {'after/before':>12}")
    for label, f in figures.items():
        print(f"{label:18} {f['before']:10.0f} {f['after']:10.0f} {f['ratio']:12.3f}")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
