"""The slowest engine call the table makes, per game, in its worst positions.

usage: python bench/worst.py [--quick] [--deals N] [--seed S] [--json FILE] [--table]

The table service asks an engine, on every turn: ``to_act``, the turn's
options (``non_play_actions``: can it pass, its declares), ``hints`` (every
non-play option and at most 50 plays), ``default_action`` (what a timeout
applies), ``check`` (a copy of the engine applying a play) and ``apply``
(here of ``timeout``), and ``view``. The goal: none of these
takes more than 20 ms in any position of any game (a call that long stalls
every game of the instance's event loop).

Positions:

- named worst positions (:data:`NAMED`): hunzhan void followers against a 6-
  and a 7-pair run, shengji with 4 decks void against a quad, daa followers
  with many sets (chains of trios, long runs), doudizhu leaders and
  followers with many kicker choices;
- a seeded random search per game (``--deals`` random self-play deals, 40
  with ``--quick`` ... 8): every turn's calls are timed once and the slowest
  positions are timed again in full.

Every call is timed on a fresh copy of the position (no engine cache from an
earlier call), best of 3, in ms of this process's CPU. An engine without the
bounded calls (the code before) is timed on what the table called
then: ``legal_actions`` for the hints and the turn's options. Prints per
game the slowest call against the 20 ms goal (as a ratio, < 1 meets it), then
a JSON line. ``--table`` then plays the hunzhan worst positions through a
running table instance beside other games (bench/worst_table.py) and prints
the instance's longest unresponsive gap against the 50 ms goal.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from paiju.rules import load
from paiju.rules.engine import Action, Game
from paiju.rules.selfplay import random_step

GOAL_MS = 20.0
GAMES = ("hunzhan", "shengji", "daa", "doudizhu")

RUN7 = "7H 7H 8H 8H 9H 9H JH JH QH QH KH KH AH AH"
RUN6 = "8H 8H 9H 9H JH JH QH QH KH KH AH AH"
#: 21 distinct plain cards (no point card), none of hearts: C(21, 14) follows.
VOID21 = "7C 8C 9C JC QC AC 7D 8D 9D JD QD AD 7S 8S 9S JS QS AS 2C 2D 2H"


def hunzhan_void_deal(run: str) -> dict[str, Any]:
    """The deal of :func:`hunzhan_void`: seat 0 holds ``run`` and TS, seat 1
    :data:`VOID21`, the others the rest in deck order; ``order`` deals them
    round-robin from seat 0 (records.md ``deal.order``)."""
    from collections import Counter

    from paiju.rules.cards import deck

    spec = {0: f"{run} TS", 1: VOID21}
    pool = Counter(deck(2, without_ranks="346"))
    hands = [spec.get(s, "").split() for s in range(4)]
    for h in hands:
        pool.subtract(h)
    rest = [c for c in deck(1, without_ranks="346") for _ in range(pool[c])]
    for h in hands:
        need = 21 - len(h)
        h.extend(rest[:need])
        rest = rest[need:]
    order = [hands[j % 4][j // 4] for j in range(84)]  # round-robin from seat 0
    return {"hands": hands, "bottom": [], "first": 0, "order": order}


def hunzhan_void(run: str) -> Game:
    """Seat 0 declares TS (trump spades) and leads the run of heart pairs
    ``run``; seat 1, void in hearts with 21 distinct plain cards (C(21, 12) =
    293,930 follows to a 6-pair run, C(21, 14) = 116,280 to a 7-pair run), is
    to follow."""
    g = load("hunzhan")({}, hunzhan_void_deal(run))
    g.apply(Action(0, "declare", ("TS",)))
    g.apply(Action(None, "end_declare"))
    g.apply(Action(0, "play", tuple(run.split())))
    return g


def shengji_quad_void() -> Game:
    """4 decks, trump hearts: seat 0 leads a quad of AS; seat 1, void in
    spades, holds 52 cards of 42 distinct ones and is to follow."""
    from collections import Counter

    from paiju.rules.cards import deck

    pool = Counter(deck(4))
    one_each = [c for c in dict.fromkeys(deck(1)) if c[1] != "S"]
    seat1 = one_each + one_each[: 52 - len(one_each)]
    pool.subtract(seat1)
    pool.subtract(["AS"] * 4)
    rest = sorted(pool.elements(), key=lambda c: (c[1] != "S", c))
    hands = [rest[:48], seat1, rest[48:100], rest[100:152]]
    g: Game = load("shengji").from_position(  # type: ignore[attr-defined]
        {"decks": 4}, hands=hands, dealer=0, trump="H", buried=rest[152:160], leader=0,
        trick=[["AS"] * 4])
    return g


def _daa_game(hand0: list[str], hand1: list[str], declare: tuple[str, ...] = ()) -> Game:
    """A daa game at its first play: seat 0 holds ``hand0`` (with the ♥A, so
    it leads when nobody declares; it declares ``declare`` if given), seat 1
    ``hand1``, the rest in deck order."""
    from collections import Counter

    from paiju.games.daa.deal import hand_sizes
    from paiju.rules.cards import deck

    sizes = hand_sizes(0)
    pool = Counter(deck(2))
    pool.subtract(hand0 + hand1)
    rest = sorted(pool.elements(), key=lambda c: (c == "AH", c))
    hands = [hand0 + rest[: sizes[0] - len(hand0)]]
    rest = rest[sizes[0] - len(hand0):]
    hands.append(hand1 + rest[: sizes[1] - len(hand1)])
    rest = rest[sizes[1] - len(hand1):]
    for s in (2, 3, 4):
        hands.append(rest[: sizes[s]])
        rest = rest[sizes[s]:]
    g = load("daa")({}, {"hands": hands, "bottom": [], "first": 0})
    if declare:
        g.apply(Action(0, "declare", declare))
    while g.phase != "play":
        g.apply(Action(None, "end_declare"))
    return g


def daa_follower_sets() -> Game:
    """Seat 0 leads a 连珠蛋 of three trios (444 555 666); seat 1 holds five
    cards each of 7 8 9 10 (four suits): thousands of answering chains."""
    lead = ["4S", "4H", "4C", "5S", "5H", "5C", "6S", "6H", "6C"]
    follower = [f"{r}{s}" for r in "789T" for s in "SSHCD"] + ["JS", "JH"]
    g = _daa_game([*lead, "AH", "AH"], follower)
    g.apply(Action(0, "play", tuple(lead)))
    return g


def daa_leader_runs() -> Game:
    """Seat 0 declared ♥A holding both (a solo that may still reveal, 亮明)
    and leads with two suits of every rank 4 … K: 龙 of every length."""
    hand = ["AH", *(f"{r}{s}" for r in "456789TJQK" for s in "SH"), "AH"]
    return _daa_game(hand, [], declare=("AH",))


def doudizhu_leader() -> Game:
    """The landlord leads 20 cards: three trios in a row and many kickers."""
    hand = [f"{r}{s}" for r in "3456" for s in "SHC"] + [f"{r}S" for r in "789TJQKA"]
    return _doudizhu_with(hand)


def _doudizhu_with(hand: list[str]) -> Game:
    from paiju.rules.cards import deck

    rest = [c for c in deck(1) if c not in hand]
    hands = [hand[:17], rest[:17], rest[17:34]]
    bottom = hand[17:]
    g = load("doudizhu")({}, {"hands": hands, "bottom": bottom, "first": 0})
    g.apply(Action(0, "call"))
    for s in (1, 2):
        if g.to_act() == [s]:
            g.apply(Action(s, "no_rob"))
    while g.phase != "play":
        seat = g.to_act()[0]
        g.apply(g.default_action(seat))
    return g


#: Named worst positions: label → (game, builder).
NAMED: dict[str, tuple[str, Callable[[], Game]]] = {
    "hunzhan void vs 6 pairs": ("hunzhan", lambda: hunzhan_void(RUN6)),
    "hunzhan void vs 7 pairs": ("hunzhan", lambda: hunzhan_void(RUN7)),
    "shengji 4 decks void vs quad": ("shengji", shengji_quad_void),
    "daa follower, chains of trios": ("daa", daa_follower_sets),
    "daa leader, runs of every length": ("daa", daa_leader_runs),
    "doudizhu leader, many kickers": ("doudizhu", doudizhu_leader),
}


def _bounded(g: Game) -> bool:
    return hasattr(g, "hints")


def _calls(g: Game, seat: int) -> dict[str, Callable[[Game], object]]:
    """The table's calls for ``seat``'s turn (each takes a fresh copy)."""
    bounded = _bounded(g)

    def turn(e: Game) -> object:
        if bounded:
            return e.can_pass(seat), e.non_play_actions(seat)
        return e.legal_actions(seat)

    def hints(e: Game) -> object:
        return e.hints(seat) if bounded else e.legal_actions(seat)

    default = copy.deepcopy(g).default_action(seat)  # no cache left in ``g``
    return {
        "to_act": lambda e: e.to_act(),
        "turn": turn,
        "hints": hints,
        "default_action": lambda e: e.default_action(seat),
        "check": lambda e: copy.deepcopy(e).apply(default),
        "timeout": lambda e: e.apply(Action(seat, "timeout")),
        "view": lambda e: e.view(seat),
    }


def time_calls(g: Game, repeat: int = 3) -> dict[str, float]:
    """ms of CPU per table call for the first seat to act (best of ``repeat``,
    each on a fresh copy of ``g``)."""
    seat = g.to_act()[0]
    out: dict[str, float] = {}
    for name, call in _calls(g, seat).items():
        best = float("inf")
        for _ in range(repeat):
            e = copy.deepcopy(g)
            t = time.process_time()
            call(e)
            best = min(best, time.process_time() - t)
        out[name] = round(best * 1000, 3)
    return out


def _turn_cost(g: Game, seat: int) -> float:
    """One timing of a turn's path (turn options, hints, default) on a copy."""
    e = copy.deepcopy(g)
    calls = _calls(e, seat)
    t = time.process_time()
    for name in ("turn", "hints", "default_action"):
        calls[name](e)
    return time.process_time() - t


def search(game: str, deals: int, seed: int, keep: int = 3) -> list[tuple[float, Game]]:
    """Random self-play of ``deals`` deals of ``game`` (shengji with 4 decks):
    the ``keep`` positions whose turn path was slowest, slowest first."""
    rng = random.Random(seed)
    options: dict[str, Any] = {"decks": 4} if game == "shengji" else {}
    engine = load(game)
    worst: list[tuple[float, Game]] = []
    for _ in range(deals):
        g = engine(options, engine.random_deal(options, rng))
        while not g.finished:
            seats = g.to_act()
            if seats:
                cost = _turn_cost(g, seats[0])
                if len(worst) < keep or cost > worst[-1][0]:
                    worst.append((cost, copy.deepcopy(g)))
                    worst.sort(key=lambda x: -x[0])
                    del worst[keep:]
            g.apply(random_step(g, rng))
    return worst


def run(deals: int, seed: int) -> dict[str, Any]:
    """Every named position and the random search's worst ones, per game."""
    per_game: dict[str, dict[str, Any]] = {g: {"positions": {}} for g in GAMES}
    for label, (game, build) in NAMED.items():
        per_game[game]["positions"][label] = time_calls(build())
    for game in GAMES:
        for i, (_, g) in enumerate(search(game, deals, seed)):
            per_game[game]["positions"][f"random search #{i + 1}"] = time_calls(g)
    for f in per_game.values():
        slowest = max(((ms, f"{label}: {call}") for label, calls in f["positions"].items()
                       for call, ms in calls.items()), default=(0.0, "none"))
        f["slowest_ms"], f["slowest"] = slowest
        f["ratio_to_goal"] = round(slowest[0] / GOAL_MS, 3)
    return {"goal_ms": GOAL_MS, "deals": deals, "seed": seed, "games": per_game}


def report(r: dict[str, Any]) -> list[str]:
    """One line per game: the slowest call against the goal."""
    return [f"worst {game:9} slowest {f['slowest_ms']:8.2f} ms ({f['slowest']}), "
            f"goal ≤ {r['goal_ms']:.0f} ms, ratio {f['ratio_to_goal']:.2f}"
            for game, f in r["games"].items()]


def main(argv: list[str] | None = None) -> int:
    """Run and print (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=40, help="random deals per game")
    parser.add_argument("--quick", action="store_true", help="8 random deals per game")
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--table", action="store_true",
                        help="also play the hunzhan worst positions through a running table "
                             "instance beside other games (bench/worst_table.py): its "
                             "longest unresponsive gap")
    args = parser.parse_args(argv)
    r = run(8 if args.quick else args.deals, args.seed)
    for game, f in r["games"].items():
        for label, calls in f["positions"].items():
            top = max(calls, key=calls.__getitem__)
            print(f"  {game:9} {label:32} slowest {top} {calls[top]:.2f} ms", flush=True)
    for line in report(r):
        print(line, flush=True)
    if args.table:
        import asyncio

        from bench import worst_table

        r["table"] = asyncio.run(worst_table.bench())
    emit(r, args.json)
    return 0


def emit(r: dict[str, Any], path: Path | None) -> None:
    """Print ``r`` as one JSON line and, where ``path`` is given, write it there
    (indented)."""
    print(json.dumps(r, ensure_ascii=False))
    if path is not None:
        path.write_text(json.dumps(r, indent=1, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
