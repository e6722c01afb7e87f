"""A player's evening at the table, in real headless Chromium against the
real platform (processes), 1280 px:

- 记牌器: at the first turn of play of each game, the side panel's counter
  (whole at 1280 and 390 px: player_counter_1280.png, player_counter_390.png)
  shows, rank by rank in 斗地主's order (大王 小王 2 A … 3), one deck of 54
  less my hand, the cards played and the kitty the landlord holds, as the
  ``played`` and ``kitty_shown`` events a bot was sent tell.
- 自动开始 (auto-ready): with the toggle on, three games in a row start
  without a click on 开始 after the first.
- Sounds: the sound module hears ``turn`` at my turns and the end of each
  game; the mapping of the other events (报单 / 报双, bombs, the rocket, the
  last 5 s of my clock) through its hook; the clock's ``urgent`` class; the
  tab title flashing on my turn while the tab is hidden; mute and volume
  (the side panel's 声音) kept across a reload.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.platform_procs import Platform
from tests.web.counter_steps import COUNTER_STEPS_INIT, counter_steps_hold
from tests.web.helpers import (
    DESKTOP,
    PHONE,
    SNAPSHOT_JS,
    Played,
    RecordingBot,
    my_turn,
    no_emoji,
    nothing_cut,
    open_page,
    sit_and_start,
    start_bots,
    stop_bots,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(420)]

#: 斗地主's counter order and one deck: 4 of each rank, 1 of each joker.
DDZ_ORDER = ["BJ", "SJ", "2", "A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "4", "3"]
COUNTER_JS = """() => [...document.querySelectorAll('#card-counter .cc')].map((c) =>
  [c.dataset.rank, Number(c.querySelector('b').textContent)])"""
#: document.hidden as the test says (window.__hidden), for the title's flashing.
HIDDEN_INIT = """Object.defineProperty(document, 'hidden', {configurable: true,
  get: () => window.__hidden === true});"""


@pytest.fixture(scope="module")
def platform_env() -> dict[str, str]:
    """A quick paced deal (30 ms a card)."""
    return {"TABLE_DEAL_INTERVAL_MS": "30"}


def rank(card: str) -> str:
    return card if card in ("BJ", "SJ") else card[0]


def expected_counter(bot: RecordingBot, game_id: str, me: int, hand: list[str]
                     ) -> list[list[Any]]:
    """One deck less ``hand``, every card played and the kitty the landlord
    (not me) holds, from the bot's events of ``game_id``."""
    left = Counter({r: 1 if r in ("BJ", "SJ") else 4 for r in DDZ_ORDER})
    played: list[str] = []
    kitty: list[str] = []
    landlord = None
    for ev in bot.events:
        if ev.get("game_id") != game_id:
            continue
        if ev["type"] == "played":
            played += ev["cards"]
        elif ev["type"] == "kitty_shown":
            kitty, landlord = list(ev["cards"]), ev["landlord"]
    held = [c for c in kitty if c not in played] if landlord != me else []
    left.subtract(rank(c) for c in [*hand, *played, *held])
    return [[r, left[r]] for r in DDZ_ORDER]


async def counter_matches(page: Any, bot: RecordingBot) -> list[list[Any]]:
    """The page's counter once it equals what the bot's events say (the bot
    may hear the last play a moment after the page); fails after 5 s."""
    end = time.monotonic() + 5
    while True:
        g = await page.evaluate(
            "() => { const g = window.paiju.S.game; return [g.id, g.mySeat, g.hand]; }")
        want = expected_counter(bot, g[0], g[1], g[2])
        got: list[list[Any]] = await page.evaluate(COUNTER_JS)
        if got == want:
            return got
        if time.monotonic() > end:
            raise AssertionError(f"记牌器 {got} != {want}")
        await asyncio.sleep(0.2)


async def test_three_games_in_a_row_with_the_counter_and_sounds(
        platform: Platform, browser: Any, artifacts: Path) -> None:
    me = f"晚{secrets.token_hex(2)}"
    room = "doudizhu-10-05"
    page = await open_page(browser, platform, DESKTOP, me)
    await page.add_init_script(HIDDEN_INIT)
    await page.add_init_script(COUNTER_STEPS_INIT)
    await page.reload()
    await page.wait_for_selector(".server")
    await page.evaluate("() => { localStorage.setItem('paiju.autoReady', '1');"
                        " localStorage.setItem('paiju.sound', JSON.stringify({muted: true})); }")
    ready_clicks: list[int] = []
    await page.expose_function("readyClicked", lambda: ready_clicks.append(1))
    # the bots play on past three (a redeal is a game of theirs, not a settlement)
    bots = start_bots(platform, "doudizhu", room, [1, 2], games=6, think=(0.05, 0.1))
    watcher = bots[0][0]
    games: list[str] = []
    counted = 0
    flashed = False
    played = Played()  # one for the test: the illegal pair is tried once, as elsewhere
    try:
        await sit_and_start(page, "doudizhu-10", room, 0, 2)
        await page.evaluate("""() => document.addEventListener('click', (e) => {
          if (e.target.closest('#btn-ready')) window.readyClicked(); }, true)""")
        # the end sounds heard (the module keeps only its last 50 names)
        await page.evaluate("""() => { window.__ends = 0;
          const s = window.paiju.sound; const before = s.hook;
          s.hook = (name) => { if (['win', 'lose', 'over'].includes(name)) window.__ends++;
                               if (before) before(name); }; }""")
        end = time.monotonic() + 360
        while len(games) < 3 and time.monotonic() < end:
            s = await page.evaluate(SNAPSHOT_JS)
            if s["settle"]:
                # the game of the settlement table shown
                gid = await page.evaluate(
                    "() => window.paiju.S.result && window.paiju.S.result.game_id")
                if gid and gid not in games:
                    games.append(gid)
                    # each game's end was heard: win, lose or over (the next
                    # game's sounds may follow already: auto-ready)
                    await page.wait_for_function("(n) => window.__ends >= n",
                                                 arg=len(games), timeout=5000)
                await page.wait_for_timeout(100)
                continue
            if s["bids"]:
                await page.click(f'.bid-btn[data-kind="{s["bids"][0]}"]', timeout=3000)
                await page.wait_for_timeout(150)
                continue
            if s["play"] and s["hints"] not in (None, "") and s["phase"] == "play":
                if counted < len(games) + 1:
                    await counter_matches(page, watcher)
                    counted += 1
                    assert "turn" in await page.evaluate("() => window.paiju.sound.played")
                    if counted == 1:  # my turn: nothing moves meanwhile
                        await nothing_cut(page, "the counter at 1280 px")
                        await page.screenshot(path=str(artifacts / "player_counter_1280.png"))
                        await page.set_viewport_size(PHONE)
                        await page.wait_for_timeout(150)
                        await nothing_cut(page, "the counter at 390 px")
                        await no_emoji(page, "the counter at 390 px")
                        await page.screenshot(path=str(artifacts / "player_counter_390.png"))
                        await page.set_viewport_size(DESKTOP)
                await my_turn(page, artifacts, "player", s, played, "")
                if not flashed:
                    # hide the tab, then my next turn flashes the title
                    await page.evaluate("() => { window.__hidden = true; }")
                    await page.wait_for_function(
                        "() => document.title.startsWith('【轮到你了】')", timeout=30000)
                    await page.evaluate("() => { window.__hidden = false;"
                                        " document.dispatchEvent(new Event('visibilitychange')); }")
                    await page.wait_for_function(
                        "() => !document.title.includes('轮到你了')", timeout=3000)
                    flashed = True
                continue
            await page.wait_for_timeout(50)
        assert len(games) == 3, f"three games in a row, got {games}"
        # at my first play turn of a game (a game may end before I play)
        assert counted >= 2, "the counter was checked in the games I played in"
        assert not ready_clicks, "no click on 开始 after the first game"
        assert await counter_steps_hold(page, "doudizhu", platform.data / "table.db") > 0
        await page.screenshot(path=str(artifacts / "player_three_games.png"))
        assert not page.errors, page.errors
    finally:
        await stop_bots(bots, wait=0.1)


#: Each event the sound module hears, and the sounds it must play (the seeds'
#: calls: 报单 / 报双 one or two cards left, 炸弹, 王炸; the end by my points).
SOUND_CASES: list[tuple[dict[str, Any], list[str]]] = [
    ({"type": "your_turn", "phase": "play"}, ["turn"]),
    ({"type": "your_turn", "phase": "declaring"}, []),
    ({"type": "played", "announce": ["报单"]}, ["alert"]),
    ({"type": "played", "announce": ["报双"]}, ["alert"]),
    ({"type": "played", "announce": ["炸弹"]}, ["bomb"]),
    ({"type": "played", "announce": ["王炸", "报单"]}, ["rocket", "alert"]),
    ({"type": "played", "cards": ["3S"]}, []),
    ({"type": "game_finished", "result": {"points": [2, -1, -1]}}, ["win"]),
    ({"type": "game_finished", "result": {"points": [-2, 1, 1]}}, ["lose"]),
    ({"type": "game_finished", "reason": "redeal"}, []),
]


async def test_sound_hook_clock_and_settings(platform: Platform, browser: Any) -> None:
    page = await open_page(browser, platform, DESKTOP, f"声{secrets.token_hex(2)}")
    await page.evaluate("() => import('/js/sound.js').then((m) => { window.snd = m; })")
    for ev, want in SOUND_CASES:
        heard = await page.evaluate("""(ev) => { const out = [];
          window.paiju.sound.hook = (n) => out.push(n);
          window.snd.soundOfEvent({ mySeat: 0 }, ev);
          window.paiju.sound.hook = null; return out; }""", ev)
        assert heard == want, (ev, heard)
    # the last 5 s of my clock tick once a second; 6 s left is quiet
    ticks = await page.evaluate("""() => { const out = [];
      window.paiju.sound.hook = (n) => out.push(n);
      const S = { game: { phase: 'play', my: { phase: 'play', deadline: 100000 } } };
      for (const now of [94000, 95500, 95600, 96100, 99100, 99900, 100000]) {
        window.snd.clockTick(S, now);
      }
      window.paiju.sound.hook = null; return out; }""")
    # 94000: 6 s left; 95500 / 95600: 5 s (once); 96100: 4 s; 99100 / 99900: 1 s (once); 100000: 0
    assert ticks == ["tick", "tick", "tick"]
    # the clock's urgent class in its last 5 s
    urgent = await page.evaluate("""async () => {
      const now = Date.now();
      const box = document.createElement('div');
      box.innerHTML = `<span class="timer" id="t6" data-deadline="${now + 6500}"></span>` +
        `<span class="timer" id="t3" data-deadline="${now + 3000}"></span>`;
      document.body.append(box);
      await new Promise((r) => setTimeout(r, 600));
      const out = [document.querySelector('#t6').classList.contains('urgent'),
                   document.querySelector('#t3').classList.contains('urgent')];
      box.remove(); return out; }""")
    assert urgent == [False, True]
    # mute and volume, set in the 声音 dialog of the table's side panel, kept
    # across a reload (the page comes back to its table)
    await page.click('.server[data-server="doudizhu-100"]')
    await page.click('.room[data-room="doudizhu-100-01"] .rseat.free[data-seat="0"]')
    await page.click("#btn-sound")
    await page.check("#sound-mute")
    await page.fill("#sound-volume", "30")
    await page.reload()
    await page.click("#btn-sound")
    assert await page.is_checked("#sound-mute")
    assert await page.input_value("#sound-volume") == "30"
    assert not page.errors, page.errors
