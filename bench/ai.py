"""Strength of the AI levels, in duplicate format (the same deals played again
with the sides or seats rotated, so that the cards do not decide).

usage: python bench/ai.py [--games G,..] [--deals N] [--seed S] [--quick]
                          [--matchups A:B,..] [--json PATH]

For every game with AI levels beyond ``random`` (``paiju.rules.ai.levels``;
the others are skipped with a line saying so) it plays, by default: normal
vs random, hard vs random, hard vs normal, and for doudizhu normal and hard
vs RLCard's rule agent ``doudizhu-rule-v1`` (bench/ai_rlcard.py). The
platform's current bots play uniformly random legal actions, so *vs random*
is also *vs the current bots*.

- doudizhu (landlord vs farmers), DouZero's protocol: the deal's first bidder
  is the landlord (it calls, the others do not rob: multiplier 1, no bidding
  skill measured); A plays the landlord and B both farmers, then B the
  landlord and A the farmers, on the same deal. WP: the fraction of games
  A's side wins (as landlord, as farmers, and their mean); ADP: A's side's
  average points per game, +m for a win and -m for a loss, m the final
  multiplier (×2 per bomb or rocket, ×2 for spring).
- other games: A at one seat and B at all the others, rotated through every
  seat on the same deal. A *wins the deal* when A's points summed over the
  rotations exceed the sum over the same games of the mean of B's seats'
  points. Win rate: deals won / deals (ties are not wins, counted apart),
  and deals won / deals decided (not tied); points: A's and B's mean
  points per game (升级: the score table's points, 庄家得分 or 非庄家得分,
  the level change of a deal).

95 % intervals: Wilson for a win fraction; mean ± 1.96·sd/√n over deals for
the averages (per-deal means, as the games of one deal are not independent).
CPU time of each ``decide`` (process time), p50/p99 per game and level.
Progress on stderr; a JSON summary with ``--json``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from paiju.rules import ENGINES, load
from paiju.rules.ai import Player, PlayerFactory, SeatView, levels, play_game
from paiju.rules.engine import Action

DEFAULT_MATCHUPS = ("normal:random", "hard:random", "hard:normal",
                    "normal:rule-v1", "hard:rule-v1")
QUICK_DEALS = 3


class Timed:
    """A player whose ``decide`` CPU seconds are appended to ``times``."""

    def __init__(self, player: Player, times: list[float]) -> None:
        self.player, self.times = player, times

    def decide(self, sv: SeatView) -> Action:
        t = time.process_time()
        a = self.player.decide(sv)
        self.times.append(time.process_time() - t)
        return a

    def declare(self, sv: SeatView) -> Action | None:
        return self.player.declare(sv)


class FixedLandlord:
    """The first bidder calls, the others do not rob (the bench's doudizhu
    protocol); in play, ``player`` decides."""

    def __init__(self, player: Player) -> None:
        self.player = player

    def decide(self, sv: SeatView) -> Action:
        types = {a.type for a in sv.legal}
        if "call" in types:
            return next(a for a in sv.legal if a.type == "call")
        if "no_rob" in types:
            return next(a for a in sv.legal if a.type == "no_rob")
        return self.player.decide(sv)

    def declare(self, sv: SeatView) -> Action | None:
        return self.player.declare(sv)


def wilson(k: float, n: int) -> tuple[float, float]:
    """95 % Wilson interval of ``k`` successes in ``n``."""
    if n == 0:
        return (0.0, 1.0)
    z = 1.96
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (c - h, c + h)


def mean_ci(xs: Sequence[float]) -> dict[str, float]:
    """Mean and its 95 % normal interval."""
    n = len(xs)
    m = sum(xs) / n if n else 0.0
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
    h = 1.96 * sd / math.sqrt(n) if n else 0.0
    return {"mean": m, "lo": m - h, "hi": m + h}


def clamp01(r: dict[str, float]) -> dict[str, float]:
    """An interval of a fraction kept within [0, 1]."""
    return {**r, "lo": max(0.0, r["lo"]), "hi": min(1.0, r["hi"])}


def rate(k: float, n: int) -> dict[str, float]:
    """A win fraction and its Wilson interval."""
    lo, hi = wilson(k, n)
    return {"rate": k / n if n else 0.0, "lo": lo, "hi": hi, "n": n}


def factories(game: str) -> dict[str, PlayerFactory]:
    """The levels of ``game`` and, for doudizhu with rlcard installed, ``rule-v1``."""
    out = dict(levels(game))
    if game == "doudizhu":
        from bench import ai_rlcard
        if ai_rlcard.available():
            out["rule-v1"] = ai_rlcard.RuleV1Player
    return out


def doudizhu_match(make: Mapping[str, PlayerFactory], a: str, b: str, deals: int, seed: int,
                   times: dict[str, list[float]], progress: Callable[[int], None]
                   ) -> dict[str, Any]:
    """WP and ADP of ``a`` against ``b`` (DouZero's protocol, see the module docstring)."""
    engine = load("doudizhu")
    won = {"landlord": 0, "farmers": 0}
    pts: dict[str, list[float]] = {"landlord": [], "farmers": []}
    per_deal: list[float] = []
    per_deal_pts: list[float] = []
    for d in range(deals):
        deal = engine.random_deal({}, random.Random(f"{seed}:{d}"))
        landlord = deal["first"]
        both = []
        for side in ("landlord", "farmers"):
            rng = random.Random(f"{seed}:{d}:{side}")
            players: list[Player] = []
            for s in range(3):
                lvl = a if (s == landlord) == (side == "landlord") else b
                players.append(FixedLandlord(Timed(make[lvl](rng), times.setdefault(lvl, []))))
            game, _ = play_game("doudizhu", {}, deal, players)
            res = game.result()
            a_won = (res.detail["winner"] == landlord) == (side == "landlord")
            m = res.detail["multiplier"]
            won[side] += a_won
            pts[side].append(m if a_won else -m)
            both.append((a_won, m if a_won else -m))
        per_deal.append((both[0][0] + both[1][0]) / 2)
        per_deal_pts.append((both[0][1] + both[1][1]) / 2)
        progress(d + 1)
    return {
        "wp_landlord": rate(won["landlord"], deals), "wp_farmers": rate(won["farmers"], deals),
        "wp": clamp01(mean_ci(per_deal)), "adp_landlord": mean_ci(pts["landlord"]),
        "adp_farmers": mean_ci(pts["farmers"]), "adp": mean_ci(per_deal_pts), "deals": deals,
    }


def rotation_match(game: str, make: Mapping[str, PlayerFactory], a: str, b: str, deals: int,
                   seed: int, times: dict[str, list[float]], progress: Callable[[int], None]
                   ) -> dict[str, Any]:
    """``a`` at each seat in turn against ``b`` everywhere else (see the module docstring)."""
    engine = load(game)
    seats = engine.seats
    wins = ties = 0
    a_pts: list[float] = []
    b_pts: list[float] = []
    for d in range(deals):
        deal = engine.random_deal({}, random.Random(f"{seed}:{d}"))
        a_sum = b_sum = 0.0
        for seat in range(seats):
            rng = random.Random(f"{seed}:{d}:{seat}")
            players: list[Player] = [
                Timed(make[a if s == seat else b](rng),
                      times.setdefault(a if s == seat else b, []))
                for s in range(seats)]
            g, _ = play_game(game, {}, deal, players)
            points = g.result().points
            a_sum += points[seat]
            b_sum += sum(points[s] for s in range(seats) if s != seat) / (seats - 1)
        wins += a_sum > b_sum
        ties += a_sum == b_sum
        a_pts.append(a_sum / seats)
        b_pts.append(b_sum / seats)
        progress(d + 1)
    return {"win": rate(wins, deals), "ties": ties, "decided": rate(wins, deals - ties),
            "a_points": mean_ci(a_pts),
            "b_points": mean_ci(b_pts),
            "diff": mean_ci([x - y for x, y in zip(a_pts, b_pts, strict=True)]), "deals": deals}


def percentiles(xs: list[float]) -> dict[str, float]:
    """p50 and p99 milliseconds of ``xs`` (seconds) and their count."""
    s = sorted(xs)
    if not s:
        return {"p50_ms": 0.0, "p99_ms": 0.0, "n": 0}
    return {"p50_ms": 1e3 * s[len(s) // 2], "p99_ms": 1e3 * s[min(len(s) - 1, int(len(s) * 0.99))],
            "max_ms": 1e3 * s[-1], "n": len(s)}


def _progress(label: str, total: int) -> Callable[[int], None]:
    start = time.monotonic()

    def show(done: int) -> None:
        el = time.monotonic() - start
        sys.stderr.write(f"\r{label}: {done}/{total} deals, {el:.0f} s")
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()
    return show


def fmt_rate(r: Mapping[str, float]) -> str:
    return f"{r['rate']:.3f} [{r['lo']:.3f}, {r['hi']:.3f}]"


def fmt_mean(r: Mapping[str, float]) -> str:
    return f"{r['mean']:+.3f} [{r['lo']:+.3f}, {r['hi']:+.3f}]"


def report(game: str, label: str, r: Mapping[str, Any]) -> str:
    """One matchup's figures as a line."""
    if game == "doudizhu":
        return (f"{game} {label}: WP {fmt_mean(r['wp'])} (landlord {fmt_rate(r['wp_landlord'])},"
                f" farmers {fmt_rate(r['wp_farmers'])}); ADP {fmt_mean(r['adp'])} (landlord "
                f"{fmt_mean(r['adp_landlord'])}, farmers {fmt_mean(r['adp_farmers'])}); "
                f"{r['deals']} deals x 2 games")
    return (f"{game} {label}: deals won {fmt_rate(r['win'])} ({r['ties']} ties; of the decided"
            f" deals {fmt_rate(r['decided'])}); points per game"
            f" A {fmt_mean(r['a_points'])}, B {fmt_mean(r['b_points'])}, A-B "
            f"{fmt_mean(r['diff'])}; {r['deals']} deals x {load(game).seats} games")


def run_game(game: str, matchups: Sequence[str], deals: int, seed: int) -> dict[str, Any]:
    """Every matchup of ``game`` it has the levels for; prints as it goes."""
    make = factories(game)
    if set(make) <= {"random"}:
        print(f"{game}: skipped, no AI levels beyond random (no paiju.games.{game}.ai LEVELS)")
        return {"skipped": "no AI levels beyond random"}
    out: dict[str, Any] = {"matchups": {}}
    times: dict[str, list[float]] = {}
    for m in matchups:
        a, b = m.split(":")
        if a not in make or b not in make:
            missing = a if a not in make else b
            print(f"{game} {a} vs {b}: skipped, no level {missing!r}")
            continue
        label = f"{a} vs {b}"
        show = _progress(f"{game} {label}", deals)
        if game == "doudizhu":
            r = doudizhu_match(make, a, b, deals, seed, times, show)
        else:
            r = rotation_match(game, make, a, b, deals, seed, times, show)
        out["matchups"][label] = r
        print(report(game, label, r), flush=True)
        if b == "random":
            print(f"{game} {a} vs the current bots: the same games (the bots play random legal"
                  " actions)")
    out["cpu"] = {lvl: percentiles(ts) for lvl, ts in times.items()}
    for lvl, p in out["cpu"].items():
        print(f"{game} decide CPU {lvl}: p50 {p['p50_ms']:.2f} ms, p99 {p['p99_ms']:.2f} ms"
              f" ({p['n']} decisions)")
    if game == "doudizhu" and "rule-v1" in make:
        from bench import ai_rlcard
        out["rule_v1_fallbacks"] = ai_rlcard.RuleV1Player.fallbacks
        print(f"{game} rule-v1: bids as paiju's normal level (it cannot bid; the bench fixes"
              f" the landlord); fallbacks on combinations RLCard lacks: "
              f"{ai_rlcard.RuleV1Player.fallbacks}")
    return out


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", default="", help="comma separated (default: every game)")
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help=f"{QUICK_DEALS} deals")
    ap.add_argument("--matchups", default=",".join(DEFAULT_MATCHUPS),
                    help="comma separated A:B level pairs")
    ap.add_argument("--json", default="", help="write the summary here")
    args = ap.parse_args(argv)
    games = [g for g in args.games.split(",") if g] or sorted(ENGINES)
    deals = QUICK_DEALS if args.quick else args.deals
    matchups = [m for m in args.matchups.split(",") if m]
    summary: dict[str, Any] = {"deals": deals, "seed": args.seed, "matchups": matchups,
                               "games": {}}
    for game in games:
        summary["games"][game] = run_game(game, matchups, deals, args.seed)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(summary, f, indent=1)
    return summary


if __name__ == "__main__":
    if __package__ in (None, ""):
        sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent.parent))
    main()
