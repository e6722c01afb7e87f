"""The 记牌器 (card counter) a browser player sees, checked at every step of
a game against the events the server sent that page.

:data:`COUNTER_STEPS_INIT` (a page init script) keeps every frame the page
receives (``window.__frames``) and, each time the side panel's counter
changes, what it shows then with the number of frames received so far
(``window.__counterSteps``). :func:`counter_steps_hold` then checks each of
those counters against the rulings of docs/rules/<game>.md "The card
counter": per rank, the game's deck less the cards the player knows where
they are — its hand (the last ``hand`` or ``view`` sent), every card played
(``played``) and not taken back (大A's ``taken_back``), in 斗地主 the kitty
the landlord took (``kitty_shown``) while the landlord is another, and in
升级 the kitty the player itself buried (the cards that left its hand
without being played). And it checks that the counter followed the game
(it changed at least once every three plays of the other seats), and that
those events are the records of the games the table stored (the player's
dealt hand and every play).
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

#: Keeps the frames and the counter's changes (see the module docstring).
COUNTER_STEPS_INIT = """(() => {
  window.__frames = [];
  window.__counterSteps = [];
  const Base = window.WebSocket;
  window.WebSocket = class extends Base {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (e) => {
        let ev = null;
        try { ev = JSON.parse(e.data); } catch (err) { ev = null; }
        window.__frames.push(ev);
      });
    }
  };
  let last = "";
  const seen = () => {
    const cells = document.querySelectorAll("#card-counter .cc");
    if (!cells.length) return;
    const counter = [...cells].map((c) =>
      [c.dataset.rank, Number(c.querySelector("b").textContent)]);
    const key = JSON.stringify(counter);
    if (key === last) return;
    last = key;
    window.__counterSteps.push({ n: window.__frames.length, counter });
  };
  new MutationObserver(seen).observe(document,
    { childList: true, subtree: true, characterData: true });
})();"""

#: Ranks of one suit, as the counters name them (10 is ``T``).
RANKS = ("A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "4", "3", "2")


def rank(card: str) -> str:
    """A card's rank as the counter names it (a joker is its own)."""
    return card if card in ("BJ", "SJ") else card[0]


def deck(game: str, options: dict[str, Any]) -> Counter[str]:
    """Per rank, the cards of ``game``'s deal (docs/rules/<game>.md): 斗地主 one
    deck of 54; 混战 two decks without 3, 4 and 6 (84); 大A two decks (108);
    升级 ``decks`` decks (2 by default)."""
    decks = {"doudizhu": 1, "hunzhan": 2, "daa": 2}.get(game, int(options.get("decks", 2)))
    left_out = {"3", "4", "6"} if game == "hunzhan" else set()
    cards = Counter({r: 4 * decks for r in RANKS if r not in left_out})
    cards.update({"BJ": decks, "SJ": decks})
    return cards


def expected(game: str, frames: list[dict[str, Any]], player: str) -> Counter[str]:
    """The unseen cards per rank for ``player`` after ``frames`` (one game's,
    in order)."""
    options: dict[str, Any] = {}
    hand: list[str] = []
    peak: Counter[str] = Counter()
    played: Counter[str] = Counter()
    mine_played: Counter[str] = Counter()
    kitty: list[str] = []
    landlord = me = None
    for ev in frames:
        kind = ev.get("type")
        if kind == "game_started":
            options = ev.get("options") or {}
            me = next(s["seat"] for s in ev["seats"] if s["player"] == player)
        elif kind in ("hand", "view"):
            hand = list((ev.get("cards") if kind == "hand" else ev.get("hand")) or [])
            peak |= Counter(hand)
        elif kind == "played":
            played.update(ev["cards"])
            if ev["seat"] == me:
                mine_played.update(ev["cards"])
        elif kind == "taken_back":
            played.subtract(ev["cards"])
        elif kind == "kitty_shown" and game == "doudizhu":
            kitty, landlord = list(ev["cards"]), ev.get("landlord")
    seen = Counter(hand) + +played
    if game == "doudizhu" and landlord is not None and landlord != me:
        seen += Counter(kitty) - played
    if game == "shengji":
        seen += peak - Counter(hand) - mine_played  # the kitty I buried
    unseen = deck(game, options)
    unseen.subtract(Counter(rank(c) for c in seen.elements()))
    return unseen


async def watch_counter(page: Any) -> None:
    """Keep the frames and counters of ``page`` from now on (it reloads: an
    init script runs from the next load; the page signs in again itself)."""
    await page.add_init_script(COUNTER_STEPS_INIT)
    await page.reload()
    await page.wait_for_selector(".server")


def as_event(frame: dict[str, Any] | None) -> dict[str, Any] | None:
    """A frame as the event it brings: a command's reply holding a ``view``
    (sign-in, ``view``) is that view."""
    if frame is not None and "type" not in frame and isinstance(frame.get("view"), dict):
        return {**frame["view"], "type": "view"}
    return frame


def stored_records(db: Path) -> dict[str, dict[str, Any]]:
    """Every game record in the table's database file ``db``, by game id."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT record_json FROM table_game_records").fetchall()
    records = [json.loads(r[0]) for r in rows]
    return {str(r["game_id"]): r for r in records}


def frames_are_the_record(frames: list[dict[str, Any] | None], records: dict[str, Any],
                          player: str) -> int:
    """The events the page got of each recorded game are its record's: the
    deal of the player's seat (its ``hand`` once dealt) and every play, in order
    (seat and cards). The number of games compared."""
    games = {ev["game_id"] for ev in frames if ev is not None and ev.get("type") == "played"}
    compared = 0
    for game_id in games & set(records):
        record = records[game_id]
        of_game = [ev for ev in frames if ev is not None and ev.get("game_id") == game_id]
        seat = next(s["seat"] for ev in of_game if ev["type"] == "game_started"
                    for s in ev["seats"] if s["player"] == player)
        # the hand once dealt: the last before the kitty or the first play
        # (a paced deal sends it growing)
        dealt: list[str] = []
        for ev in of_game:
            if ev["type"] in ("kitty", "kitty_shown", "played"):
                break
            if ev["type"] == "hand":
                dealt = ev["cards"]
        assert Counter(dealt) == Counter(record["deal"]["hands"][seat]), (
            game_id, "dealt", dealt, record["deal"]["hands"][seat])
        plays = [(ev["seat"], sorted(ev["cards"])) for ev in of_game if ev["type"] == "played"]
        recorded = [(a["seat"], sorted(a["cards"])) for a in record["actions"]
                    if a["type"] == "play"]
        assert plays == recorded, (game_id, "plays", plays, recorded)
        compared += 1
    return compared


async def counter_steps_hold(page: Any, game: str, table_db: Path) -> int:
    """Check every counter the page showed (see the module docstring), and
    that the events it was checked against are the games' records in the
    table's database file ``table_db``; the number of counters checked."""
    frames = [as_event(f) for f in await page.evaluate("() => window.__frames")]
    player: str = await page.evaluate("() => window.paiju.S.me.player")
    steps: list[dict[str, Any]] = await page.evaluate("() => window.__counterSteps")
    assert steps, "the counter was shown"
    checked = 0
    # up to the end of the last game that ended (a game still starting when
    # the test stops is not one of its games)
    ended = max((i for i, ev in enumerate(frames)
                 if ev is not None and ev.get("type") == "game_finished"), default=-1)
    for step in steps:
        if step["n"] > ended + 1:
            continue
        # the game of the counter shown: that of the last counter the page got
        counted = [ev["game_id"] for ev in frames[:step["n"]] if ev is not None
                   and ev.get("type") in ("counter", "view") and ev.get("game_id")]
        if not counted:
            continue
        upto = [ev for ev in frames[:step["n"]]
                if ev is not None and ev.get("game_id") == counted[-1]]
        want = expected(game, upto, player)
        shown = {r: n for r, n in step["counter"]}
        assert set(shown) == set(deck(game, {})) | set(want), (step, shown)
        assert shown == {r: want[r] for r in shown}, (
            f"记牌器 after {step['n']} frames: shown {shown}, "
            f"expected {dict(want)}")
        checked += 1
    followed_the_game(frames, steps, player)
    assert frames_are_the_record(frames, stored_records(table_db), player) >= 1
    return checked


def followed_the_game(frames: list[dict[str, Any] | None], steps: list[dict[str, Any]],
                      player: str) -> None:
    """The counter followed the game: it changed at least once for every
    three plays of cards by the other seats (each changes what is unseen;
    the page may draw a few events at once, bots playing fast)."""
    me: dict[str, int] = {}
    others = 0
    for ev in frames:
        if ev is None:
            continue
        if ev.get("type") == "game_started":
            me[ev["game_id"]] = next(s["seat"] for s in ev["seats"] if s["player"] == player)
        elif ev.get("type") == "played" and ev["cards"] and \
                me.get(ev["game_id"], ev["seat"]) != ev["seat"]:
            others += 1
    assert 3 * len(steps) >= others, (len(steps), others)
