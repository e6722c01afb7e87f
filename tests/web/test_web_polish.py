"""Web polish in real headless Chromium against the real platform.

- No emoji code point in the rendered text of any screen (login, coin
  servers, rooms with a started table, the room, the game, the settlement
  table, the dialogs): every icon is an SVG element (coins, clock,
  hourglass, raised hand, card back, suits), and 大王 / 小王 differ by shape
  (crown / star) and card face, not only by colour.
- The game is named 大A everywhere; a 24-character name stays inside its
  room tile; the side panel names the table (``01 号桌``), never the raw room id.
- 看分 and 上一轮 after the game show the game just played (上一轮: the last
  play the bots were told of); the side log starts afresh with the next game
  and never repeats a line back to back.

Screenshots (artifacts/web/): polish_rooms.png, polish_game.png,
polish_after_last.png, polish_next_game.png.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
from pathlib import Path
from typing import Any

import pytest

from tests.platform_procs import Platform
from tests.web.helpers import (
    DESKTOP,
    RecordingBot,
    check_settlement,
    no_emoji,
    open_page,
    play_to_settlement,
    start_bots,
    stop_bots,
    wait_room,
)

pytestmark = pytest.mark.timeout(240)

QUICK = (0.05, 0.1)

async def svg_icons(page: Any, selector: str) -> int:
    """How many of the elements ``selector`` hold an SVG icon."""
    n: int = await page.evaluate(
        "(sel) => [...document.querySelectorAll(sel)].filter((el) =>"
        " el.querySelector('svg.ic')).length", selector)
    return n


async def test_jokers_differ_by_shape(platform: Platform, browser: Any) -> None:
    """大王 and 小王 as the client draws them: different pip shapes (crown /
    star), different card faces, words in the corner; no emoji."""
    page = await open_page(browser, platform, DESKTOP, f"王{secrets.token_hex(2)}")
    looks = await page.evaluate("""async () => {
      const { cardHtml } = await import('/js/cards.js');
      const box = document.createElement('div');
      box.id = 'joker-test';
      box.style.cssText = 'position:fixed;left:0;top:0;--cw:72px;--ch:100px';
      box.innerHTML = cardHtml('BJ') + cardHtml('SJ');
      document.body.appendChild(box);
      return [...box.querySelectorAll('.card')].map((c) => ({
        text: c.innerText.replace(/\\s/g, ''),
        pip: c.querySelector('.pip svg').innerHTML,
        face: getComputedStyle(c).backgroundImage + getComputedStyle(c).boxShadow,
      }));
    }""")
    big, small = looks
    assert big["text"] == "大王" and small["text"] == "小王", looks
    assert big["pip"] != small["pip"], "different shapes"
    assert big["face"] != small["face"], "different card faces"
    await no_emoji(page, "jokers")


@pytest.mark.slow
async def test_polish_doudizhu(platform: Platform, browser: Any, artifacts: Path) -> None:
    """Every screen of a doudizhu game without emoji, with SVG icons; 大A;
    a long name inside its tile; no raw room id; 看分 / 上一轮 after the game;
    the side log of the next game."""
    long_name = "长" * 12 + "x" * 8 + secrets.token_hex(2)  # 24 characters
    assert len(long_name) == 24
    room = "doudizhu-10-01"
    page = await open_page(browser, platform, DESKTOP, long_name)
    await no_emoji(page, "servers")
    text = await page.inner_text("#screen-servers")
    assert "大A" in text and "打A" not in text, text
    watcher = await open_page(browser, platform, DESKTOP, f"看{secrets.token_hex(2)}")
    assert "大A" in await watcher.evaluate("() => document.body.innerText")
    busy = start_bots(platform, "doudizhu", "doudizhu-10-02", [0, 1, 2], think=(0.5, 1.0))
    bots: list[tuple[RecordingBot, asyncio.Task[None]]] = []
    try:
        await page.click('.server[data-server="doudizhu-10"]')
        await page.click(f'.room[data-room="{room}"] .rseat.free[data-seat="0"]')
        await page.wait_for_selector("#btn-ready")
        # The side panel names the table, not the room id.
        side = await page.inner_text("#side")
        assert "01 号桌" in side and room not in side, side

        await watcher.click('.server[data-server="doudizhu-10"]')
        await wait_room(watcher, "doudizhu-10-02", "started")
        await watcher.wait_for_selector(f'.room[data-room="{room}"] .rseat.taken[data-seat="0"]')
        inside = await watcher.evaluate("""(room) => {
          const tile = document.querySelector(`.room[data-room="${room}"]`).getBoundingClientRect();
          const els = document.querySelectorAll(`.room[data-room="${room}"] .rseat *`);
          return [...els].every((el) => {
            const r = el.getBoundingClientRect();
            return r.width === 0 || (r.left >= tile.left - 0.5 && r.right <= tile.right + 0.5);
          });
        }""", room)
        assert inside, "the long name stays inside its room tile"
        assert await svg_icons(watcher, '.room[data-room="doudizhu-10-02"] .cardicon') == 1
        await no_emoji(watcher, "rooms")
        await watcher.screenshot(path=str(artifacts / "polish_rooms.png"))

        bots = start_bots(platform, "doudizhu", room, [1, 2], games=2, think=QUICK)
        await page.wait_for_function(
            "() => document.querySelectorAll('#seats .ready-mark').length === 2", timeout=20000)
        assert await svg_icons(page, "#seats .ready-mark") == 2
        await no_emoji(page, "room")
        await page.click("#btn-ready")
        await page.wait_for_selector("#hand .card", timeout=20000)
        await page.wait_for_selector("#seats .turnmark svg.ic, .clock svg.ic", timeout=20000)
        assert await svg_icons(page, "#seats .pcoins") == 2
        await no_emoji(page, "game")
        await page.screenshot(path=str(artifacts / "polish_game.png"))
        game_id = await page.evaluate("() => window.paiju.S.game.id")

        await play_to_settlement(page, artifacts, "polish")
        await check_settlement(page, artifacts, "polish", long_name, 3)
        await no_emoji(page, "settlement")

        # 上一轮 after the game: the game's last play, as the bots were told it.
        plays = [ev for ev in bots[0][0].events
                 if ev.get("type") == "played" and ev.get("game_id") == game_id]
        last_cards = sorted(plays[-1]["cards"])
        await page.click("#btn-last")
        await page.wait_for_selector(".modal-box", timeout=3000)
        shown = await page.evaluate(
            "() => [...document.querySelectorAll('.modal-body .card')].map((c) => c.dataset.card)")
        body = await page.inner_text(".modal-body")
        assert "没有进行中的牌局" not in body and "还没有上一轮" not in body, body
        assert set(last_cards) <= set(shown), (last_cards, shown)
        await no_emoji(page, "上一轮")
        await page.screenshot(path=str(artifacts / "polish_after_last.png"))
        await page.click(".modal-head .x")
        await page.wait_for_selector(".modal-box", state="detached", timeout=3000)
        await page.click("#btn-scores")
        await page.wait_for_selector(".modal-box", timeout=3000)
        body = await page.inner_text(".modal-body")
        assert "没有进行中的牌局" not in body, body
        await page.click(".modal-head .x")
        await page.wait_for_selector(".modal-box", state="detached", timeout=3000)

        # The next game: a fresh side log.
        await page.click("#settlement #btn-ready")
        await page.wait_for_function(
            "(id) => window.paiju.S.game && window.paiju.S.game.id !== id &&"
            " window.paiju.S.game.phase !== 'finished'", arg=game_id, timeout=30000)
        log = await page.evaluate("() => window.paiju.S.log")
        assert log and log[0].startswith("新的一局"), log
        assert "本局结束" not in log, log
        assert all(a != b for a, b in itertools.pairwise(log)), log
        shown_log = await page.inner_text("#log")
        assert "本局结束" not in shown_log, shown_log
        await page.screenshot(path=str(artifacts / "polish_next_game.png"))
        assert not page.errors and not watcher.errors, (page.errors, watcher.errors)
    finally:
        await stop_bots(bots, wait=0.1)
        await stop_bots(busy, wait=0.1)
