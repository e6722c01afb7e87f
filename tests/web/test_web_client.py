"""The web client in real headless Chromium against the real platform.

One browser player and bots (paiju.tools.bots.Bot, seated at the other seats of the
browser player's room) play a full doudizhu game at 1280×800 and a full
hunzhan game on a 390-wide phone screen, to the settlement table. The browser
player plays by clicking: cards, the bid / declare / hint / pass / play
buttons and, once, the right mouse button (the seed's right-click play). The
hint button only selects cards that the server's ``hints`` offered; the play
button's state always comes from the server's ``check``. The steps shared
with test_web_more.py are in helpers.py.

Screenshots (artifacts/web/): the room lists, games in progress and the
settlement tables, at both sizes.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
from pathlib import Path
from typing import Any

import pytest

from paiju.rules.errors import CODES as RULES_CODES
from tests.platform_procs import Platform
from tests.web.helpers import (
    DESKTOP,
    PHONE,
    RecordingBot,
    check_settlement,
    no_horizontal_overflow,
    open_page,
    play_to_settlement,
    start_bots,
    stop_bots,
    wait_room,
)

pytestmark = pytest.mark.timeout(240)

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
async def test_doudizhu_full_game_desktop(platform: Platform, browser: Any,
                                          artifacts: Path) -> None:
    """Room list states, sitting by clicking a seat, the start button, a full
    doudizhu game with bids and plays, a reload in the middle, the settlement."""
    me = f"网页{secrets.token_hex(2)}"
    page = await open_page(browser, platform, DESKTOP, me)
    await page.click('.server[data-server="doudizhu-10"]')
    await page.wait_for_selector(".room")
    # Other rooms in every state: 01 started (three bots), 03 waiting (one ready bot).
    busy = start_bots(platform, "doudizhu", "doudizhu-10-01", [0, 1, 2], think=(0.5, 1.0))
    lone = start_bots(platform, "doudizhu", "doudizhu-10-03", [1])
    bots: list[tuple[RecordingBot, asyncio.Task[None]]] = []
    try:
        await wait_room(page, "doudizhu-10-01", "started")
        await wait_room(page, "doudizhu-10-03", "waiting", ready_marks=1)
        assert await page.locator('.room[data-room="doudizhu-10-01"] .rseat.free').count() == 0
        assert await page.locator('.room[data-room="doudizhu-10-01"] .cardicon').count() == 1
        assert await page.locator('.room[data-room="doudizhu-10-02"] .cardicon').count() == 0
        cursor = await page.eval_on_selector(
            '.room[data-room="doudizhu-10-02"] .rseat.free', "el => getComputedStyle(el).cursor")
        assert cursor == "pointer"
        await page.screenshot(path=str(artifacts / "room_list.png"))

        await page.click('.room[data-room="doudizhu-10-02"] .rseat.free[data-seat="0"]')
        await page.wait_for_selector("#btn-ready")
        assert await page.is_visible("#btn-stand")
        # The bots never bid and the browser player calls: it is the
        # landlord, so it leads, and has a play to make by right-click.
        bots = start_bots(platform, "doudizhu", "doudizhu-10-02", [1, 2], never_bid=True)
        await page.wait_for_function(
            "() => document.querySelectorAll('#seats .ready-mark').length === 2", timeout=20000)
        await page.screenshot(path=str(artifacts / "doudizhu_room.png"))
        await page.click("#btn-ready")
        await page.wait_for_selector("#hand .card", timeout=20000)
        assert await page.locator("#btn-ready").count() == 0

        done = await play_to_settlement(page, artifacts, "doudizhu", reconnect="reload",
                                        call=True)
        assert done.bids >= 1 and done.turns >= 2
        assert done.illegal_checked, "the play button was disabled for an illegal selection"
        assert done.reconnected and done.right_clicks == 1
        await check_settlement(page, artifacts, "doudizhu", me, 3)
        await page.click("#settlement #btn-ready")
        await page.wait_for_function("() => !document.querySelector('#settlement')")
        assert await page.locator("#btn-ready").count() == 0, "the start button disappears"
        assert not page.errors, page.errors
    finally:
        await stop_bots(bots)
        await stop_bots(busy + lone, wait=0.1)


@pytest.mark.slow
async def test_hunzhan_full_game_phone(platform: Platform, browser: Any,
                                       artifacts: Path) -> None:
    """On a 390-wide phone screen: the room list, a full hunzhan game (paced
    deal, declaring, 20 s turns) with a dropped connection in the middle, the
    settlement table; no horizontal scrolling anywhere."""
    me = f"手机{secrets.token_hex(2)}"
    page = await open_page(browser, platform, PHONE, me)
    await no_horizontal_overflow(page)
    await page.click('.server[data-server="hunzhan-10"]')
    await page.wait_for_selector(".room")
    await no_horizontal_overflow(page)
    await page.screenshot(path=str(artifacts / "phone_room_list.png"))
    bots: list[tuple[RecordingBot, asyncio.Task[None]]] = []
    try:
        await page.click('.room[data-room="hunzhan-10-01"] .rseat.free[data-seat="2"]')
        await page.wait_for_selector("#btn-ready")
        bots = start_bots(platform, "hunzhan", "hunzhan-10-01", [0, 1, 3])
        await page.wait_for_function(
            "() => document.querySelectorAll('#seats .ready-mark').length === 3", timeout=20000)
        await page.click("#btn-ready")
        await page.wait_for_selector("#hand .card", timeout=20000)
        await page.wait_for_function(
            "() => document.querySelector('#felt').dataset.phase === 'dealing'", timeout=5000)
        await page.screenshot(path=str(artifacts / "hunzhan_dealing.png"))
        await no_horizontal_overflow(page)
        done = await play_to_settlement(page, artifacts, "hunzhan", reconnect="drop")
        assert done.turns >= 2 and done.illegal_checked and done.reconnected
        await no_horizontal_overflow(page)
        await check_settlement(page, artifacts, "hunzhan", me, 4)
        box = await page.locator("#settlement").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        assert not page.errors, page.errors
    finally:
        await stop_bots(bots)


async def test_every_error_code_is_shown_in_words(platform: Platform, browser: Any) -> None:
    """Every error code of docs/client-protocol.md has words in the client."""
    doc = (REPO / "docs" / "client-protocol.md").read_text()
    section = doc[doc.index("## Error codes"):]
    codes = set(re.findall(r"`([a-z_]+)`", section))
    sit_row = doc[doc.index("| `sit`"):].split("\n")[0]
    codes |= set(re.findall(r"`([a-z_]+)`", sit_row[sit_row.index("Refusals"):]))
    codes.discard("sit")  # "as listed under `sit`"
    codes |= set(RULES_CODES)  # "Rules: the codes of records.md …": every one the engines raise
    assert {"not_enough_coins", "room_started", "rate_limited", "does_not_beat",
            "wrong_count"} <= codes
    page = await open_page(browser, platform, DESKTOP, f"words{secrets.token_hex(2)}")
    words = json.loads(await page.evaluate(
        "async () => JSON.stringify((await import('/js/text.js')).ERRORS)"))
    missing = sorted(codes - set(words))
    assert not missing, f"no words for {missing}"
