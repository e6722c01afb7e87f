"""Browser tests (Chromium) of the social features: 快速开始 then a
full game; watching (旁观) a game to its end on a 390-wide phone; a quick
chat phrase and emote seen at the sender's seat on another player's screen.
Screenshots in artifacts/web/."""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path
from typing import Any

import pytest

from tests.gateway.test_guarantees import Capture
from tests.platform_procs import Platform
from tests.web.helpers import (
    DESKTOP,
    PHONE,
    RecordingBot,
    check_settlement,
    look_at_scores_and_last_trick,
    no_emoji,
    no_horizontal_overflow,
    open_page,
    play_to_settlement,
    start_bots,
    stop_bots,
    wait_room,
)

#: No CSS animation runs (a bubble has popped in) before a screenshot.
SETTLED = "() => document.getAnimations().every((a) => a.playState !== 'running')"


@pytest.mark.slow  # a whole game played by clicking: about 30 s
async def test_quick_start_then_play(platform: Platform, browser: Any,
                                     artifacts: Path) -> None:
    """快速开始 in doudizhu seats the player at the fullest waiting room (two
    bots wait in doudizhu-10-04, seats 0 and 2: the player gets seat 1); the
    game is then played to its settlement table."""
    me = f"快开{secrets.token_hex(2)}"
    page = await open_page(browser, platform, DESKTOP, me)
    bots = start_bots(platform, "doudizhu", "doudizhu-10-04", [0, 2])
    try:
        await page.click('.server[data-server="doudizhu-10"]')
        await wait_room(page, "doudizhu-10-04", "waiting", ready_marks=2)
        await page.click('.bar button.quick[data-game="doudizhu"]')
        await page.wait_for_selector("#btn-ready")
        where = await page.evaluate("() => [window.paiju.S.room.room,"
                                    " window.paiju.S.room.seats.map((s) => s.seat)]")
        assert where[0] == "doudizhu-10-04" and sorted(where[1]) == [0, 1, 2]
        await page.screenshot(path=str(artifacts / "quick_start_seated.png"))
        await page.click("#btn-ready")
        await page.wait_for_selector("#hand .card", timeout=20000)
        # Someone watches: the seated player sees 旁观 1 on the felt.
        async with Capture(platform.gateway_url) as spectator:
            await spectator.login(f"看{secrets.token_hex(2)}")
            await spectator.client.call("watch", room="doudizhu-10-04")
            await page.wait_for_function(
                "() => (document.querySelector('#watchers b') || {}).textContent === '1'",
                timeout=10000)
        done = await play_to_settlement(page, artifacts, "quick_start")
        assert done.turns >= 1
        await check_settlement(page, artifacts, "quick_start", me, 3)
        assert not page.errors, page.errors
    finally:
        await stop_bots(bots)


async def test_watch_a_game_to_its_end_on_a_phone(platform: Platform, browser: Any,
                                                  artifacts: Path) -> None:
    """On a 390-wide screen: 旁观 on a started room of the list; the table
    shows every seat, no hand and no play buttons; the seated players are told
    one spectator; a dropped socket watches again; the settlement table at
    the end; 离开旁观 back to the list."""
    page = await open_page(browser, platform, PHONE, f"看客{secrets.token_hex(2)}")
    bots = start_bots(platform, "doudizhu", "doudizhu-10-02", [0, 1, 2], think=(0.1, 0.2))
    try:
        await page.click('.server[data-server="doudizhu-10"]')
        await wait_room(page, "doudizhu-10-02", "started")
        assert await page.locator('.room[data-room="doudizhu-10-01"] .watch-btn').count() == 0
        await page.click('.room[data-room="doudizhu-10-02"] .watch-btn')
        await page.wait_for_selector("#watching-note")
        await page.wait_for_function(
            "() => document.querySelectorAll('#seats .pbox').length === 3", timeout=10000)
        assert await page.locator("#hand .card").count() == 0
        assert await page.locator("#btn-play, #btn-ready, .bid-btn").count() == 0
        assert await page.locator("#btn-chat").count() == 0  # spectators cannot send
        robots: list[RecordingBot] = [b for b, _ in bots]

        def told(n: int) -> bool:
            return all(any(e["type"] == "spectators" and e["count"] == n for e in b.events)
                       for b in robots)

        for _ in range(200):
            if told(1):
                break
            await asyncio.sleep(0.05)
        assert told(1), "every seat was told of one spectator"
        await page.wait_for_function(
            "() => document.querySelectorAll('.pzone .card').length > 0", timeout=30000)
        await no_horizontal_overflow(page)
        await no_emoji(page, "watching")
        await page.screenshot(path=str(artifacts / "watch_phone_playing.png"))
        # 看分 and 上一轮 are public: a spectator opens them too.
        await look_at_scores_and_last_trick(page, artifacts, "watch_phone")
        # A dropped connection: the page signs in again and watches again.
        await page.evaluate("() => window.paiju.actions.drop()")
        await page.wait_for_function(
            "() => { const S = window.paiju.S; return S.connected && S.watch &&"
            " S.screen === 'table' && document.querySelector('#watching-note'); }",
            timeout=20000)
        for _ in range(200):
            if counts_of(robots[0])[-2:] == [0, 1]:
                break
            await asyncio.sleep(0.05)
        assert counts_of(robots[0])[-2:] == [0, 1], "gone with the socket, back with the page"
        await page.wait_for_selector("#settlement", timeout=180000)
        rows = await page.evaluate(
            "() => document.querySelectorAll('#settlement tbody tr').length")
        assert rows == 3
        assert await page.is_visible("#watch-next")
        await no_horizontal_overflow(page)
        await page.screenshot(path=str(artifacts / "watch_phone_settlement.png"))
        await page.click("#btn-unwatch")
        await page.wait_for_selector('.room[data-room="doudizhu-10-02"]')
        assert not page.errors, page.errors
    finally:
        await stop_bots(bots)


def counts_of(bot: RecordingBot) -> list[int]:
    """The spectator counts a seat was told, in order."""
    return [e["count"] for e in bot.events if e["type"] == "spectators"]


async def test_a_phrase_shows_at_the_seat_on_another_screen(platform: Platform, browser: Any,
                                                            artifacts: Path) -> None:
    """Two players in one room (one on a phone): the first sends a phrase and
    an emote from the chat panel; the second sees each as a bubble at the
    first one's seat, which goes after a few seconds."""
    sender = await open_page(browser, platform, DESKTOP, f"说话{secrets.token_hex(2)}")
    reader = await open_page(browser, platform, PHONE, f"听众{secrets.token_hex(2)}")
    for page, seat in ((sender, 0), (reader, 1)):
        await page.click('.server[data-server="doudizhu-10"]')
        await page.click(f'.room[data-room="doudizhu-10-06"] .rseat.free[data-seat="{seat}"]')
        await page.wait_for_selector("#btn-chat")
    await sender.click("#btn-chat")
    await sender.wait_for_selector("#chat-panel .phrase")
    await no_emoji(sender, "the chat panel")
    await sender.screenshot(path=str(artifacts / "chat_panel.png"))
    await sender.click('#chat-panel .phrase[data-say="well_played"]')
    bubble = '.bubble[data-seat="0"][data-say="well_played"]'
    await reader.wait_for_selector(bubble, timeout=10000)
    assert (await reader.text_content(bubble) or "").strip() == "打得漂亮！"
    # At the sender's seat: the bubble's place is the place of that seat's box.
    box_pos = await reader.eval_on_selector(
        '#seats .pbox[data-seat="0"]',
        "el => [...el.classList].find((c) => c.startsWith('pos-')).slice(4)")
    bubble_pos = await reader.eval_on_selector(
        bubble, "el => [...el.classList].find((c) => c.startsWith('at-')).slice(3)")
    assert bubble_pos == box_pos
    await no_horizontal_overflow(reader)
    await no_emoji(reader, "a phrase bubble")
    await reader.wait_for_function(SETTLED)
    await reader.screenshot(path=str(artifacts / "chat_bubble_phone.png"))
    await sender.click("#btn-chat")
    await sender.click('#chat-panel .emote-btn[data-say="thumbs_up"]')
    await reader.wait_for_selector('.bubble.emote[data-seat="0"] svg.emote', timeout=10000)
    await reader.wait_for_function(SETTLED)
    await reader.screenshot(path=str(artifacts / "chat_emote_phone.png"))
    # The bubble goes by itself.
    await reader.wait_for_function("() => !document.querySelector('.bubble')", timeout=10000)
    assert not sender.errors and not reader.errors, (sender.errors, reader.errors)
