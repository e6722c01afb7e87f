"""The web client's presence in real headless Chromium against the
real platform: back at the table from anywhere, 退出, and the away seats.

- Rejoin from a second browser context: a new context (no storage of the
  first) signs in as the same player mid-game and is straight back at the
  table with its hand, the table's public ``seq`` and, during a declaring
  deal, its lit declare buttons (the sign-in reply's ``view`` with its
  ``declare_options``); the first page is replaced (close code 4001) and
  says 已在别处登录 with 在此登录 to take the account back. The new page
  plays the doudizhu game to the settlement table, which shows the 20 s
  ready countdown (rulings.md "Shared by all games": the last unready player
  of a full room has ``ready_seconds``).
- 退出 during a hunzhan game warns first, naming the escape's cost in coins
  and the points as the server gives them (seed 000 例外: 主动退出的玩家被视为
  逃跑; rulings.md "Escapes": −3 × (60 − X) for X < 60 captured points; every
  5 points are the base's coins), then the escape's settlement table says
  that I escaped, with those coins and the points-to-coins step; 退出
  outside a game stands up with no warning.
- A game that ended while the player was away (a server whose hold is 3 s:
  the table ends it by the away seat's escape) shows that game's settlement
  table at the next sign-in, from a new context.

Screenshots (artifacts/web/): rejoin_table.png, rejoin_declare.png,
leave_warning.png, leave_escaped.png, missed_result.png.
"""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path
from typing import Any

import pytest

from tests.platform_procs import Platform
from tests.web.helpers import (
    DESKTOP,
    PHONE,
    RecordingBot,
    check_settlement,
    declare,
    no_emoji,
    nothing_cut,
    open_page,
    play_to_settlement,
    sit_and_start,
    start_bots,
    stop_bots,
)

pytestmark = pytest.mark.timeout(240)

#: Bots think 0.05–0.1 s a move.
QUICK = (0.05, 0.1)

#: The coin servers of this module: the default doudizhu and hunzhan ones and
#: a doudizhu server whose disconnect hold is 3 s (a room option of the table).
ROOMS_YAML = """\
defaults: {fee_rate: 0.02, rooms: 4, ready_seconds: 20, idle_disconnect_seconds: 30}
servers:
  - {server: doudizhu-10, name: 斗地主 10 金币场, game: doudizhu, base: 10, min_coins: 200}
  - {server: hunzhan-10, name: 混战 10 金币场, game: hunzhan, base: 10, min_coins: 400}
  - {server: doudizhu-hold, name: 斗地主 短等待场, game: doudizhu, base: 10, min_coins: 200,
     options: {reconnect_seconds: 3}}
"""


@pytest.fixture(scope="module")
def platform_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """This module's rooms file, and a paced deal of 200 ms a card: a hunzhan
    deal takes about 11 s, time enough to sign in elsewhere during it."""
    rooms = tmp_path_factory.mktemp("rooms") / "rooms.yaml"
    rooms.write_text(ROOMS_YAML, encoding="utf-8")
    return {"TABLE_DEAL_INTERVAL_MS": "200", "ROOMS_FILE": str(rooms)}


async def sign_in_elsewhere(browser: Any, platform: Platform, name: str) -> Any:
    """A new browser context (nothing of the first one's storage) signing in
    as ``name`` by clicking; returns its page once signed in."""
    ctx = await browser.new_context(viewport=DESKTOP, device_scale_factor=1)
    page = await ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    await page.goto(f"http://127.0.0.1:{platform.gateway_port}/")
    await page.fill("#login-name", name)
    await page.click("#login-btn")
    await page.wait_for_function("() => !!window.paiju.S.me", timeout=15000)
    return page


#: The page's game in one go.
GAME_JS = """() => { const g = window.paiju.S.game; if (!g) return null;
  return {id: g.id, phase: g.phase, pub: g.pub, mySeat: g.mySeat, hand: [...g.hand],
    captured: g.captured ? g.captured[g.mySeat] : 0,
    lit: document.querySelectorAll('.declare-btn.lit').length}; }"""


@pytest.mark.slow
async def test_rejoin_from_second_context_and_play(platform: Platform, browser: Any,
                                                   artifacts: Path) -> None:
    """Mid-game a second browser context signs in as the same player: it shows
    the table at once with the same hand, the first page is replaced, and the
    second plays the game to the settlement table with its ready countdown;
    退出 there stands up without a warning."""
    me = f"回来{secrets.token_hex(2)}"
    room = "doudizhu-10-01"
    page1 = await open_page(browser, platform, DESKTOP, me)
    bots: list[tuple[RecordingBot, asyncio.Task[None]]] = []
    try:
        bots = start_bots(platform, "doudizhu", room, [1, 2], games=2, think=QUICK)
        await sit_and_start(page1, "doudizhu-10", room, 0, 2)
        await page1.wait_for_function(
            "() => document.querySelectorAll('#hand .card').length === 17", timeout=20000)
        before = await page1.evaluate(GAME_JS)

        page2 = await sign_in_elsewhere(browser, platform, me)
        # Straight to the table, from the sign-in reply alone: no room list first.
        await page2.wait_for_function(
            "(id) => document.body.dataset.screen === 'table' && window.paiju.S.game &&"
            " window.paiju.S.game.id === id && document.querySelectorAll('#hand .card').length > 0",
            arg=before["id"], timeout=15000)
        after = await page2.evaluate(GAME_JS)
        assert after["mySeat"] == 0 and after["pub"] > 0, after
        # The hand: 17 cards, or 20 with the kitty where I became the landlord
        # meanwhile (a bid of mine timed out to the others' bids).
        assert set(before["hand"]) <= set(after["hand"]), (before, after)
        shown = await page2.evaluate(
            "() => [...document.querySelectorAll('#hand .card')].map((c) => c.dataset.card)")
        assert sorted(shown) == sorted(after["hand"])
        assert await page2.locator("#seats .pbox").count() == 2
        await page2.screenshot(path=str(artifacts / "rejoin_table.png"))
        # The first page was replaced (close code 4001): it says so, and only
        # that (no sign-in form, no 重连中…, no old name and coins).
        await page1.wait_for_function(
            "() => document.body.dataset.screen === 'replaced'", timeout=10000)
        assert await page1.inner_text("#conn-state") == "已在别处登录"
        assert "已在别处登录" in await page1.inner_text("#screen-replaced")
        assert await page1.locator("#me-name").count() == 0
        assert not await page1.is_visible("#login-form")
        assert await page1.is_visible("#btn-take-back")

        await play_to_settlement(page2, artifacts, "rejoin")
        await check_settlement(page2, artifacts, "rejoin", me, 3)
        # The bots press start for their second game: I am the last unready
        # player of a full room, with ready_seconds (20) to press it.
        await page2.wait_for_function(
            "() => { const t = document.querySelector('#settlement #ready-countdown .timer');"
            " return t && /^\\d+$/.test(t.textContent) && Number(t.textContent) > 0; }",
            timeout=15000)
        left = int(await page2.inner_text("#settlement #ready-countdown .timer"))
        assert 0 < left <= 20, left
        await page2.screenshot(path=str(artifacts / "settlement_countdown.png"))

        # 退出 outside a game: a plain stand, no warning.
        await page2.click("#btn-leave")
        await page2.wait_for_function(
            "(room) => document.body.dataset.screen === 'rooms' &&"
            " !!document.querySelector(`.room[data-room='${room}'] .rseat.free[data-seat='0']`)",
            arg=room, timeout=10000)
        assert await page2.locator("#leave-warning").count() == 0
        # 在此登录 on the first page takes the account back: the second is replaced.
        await page1.click("#btn-take-back")
        await page1.wait_for_function(
            "(me) => document.body.dataset.screen !== 'replaced' &&"
            " (document.querySelector('#me-name') || {}).textContent === me", arg=me,
            timeout=15000)
        await page2.wait_for_function(
            "() => document.body.dataset.screen === 'replaced'", timeout=10000)
        assert not page1.errors and not page2.errors, (page1.errors, page2.errors)
    finally:
        await stop_bots(bots, wait=0.1)


@pytest.mark.slow
async def test_declare_buttons_back_then_leave_is_an_escape(platform: Platform, browser: Any,
                                                            artifacts: Path) -> None:
    """During a hunzhan deal a second context signs in: its declare buttons are
    lit at once (the view's ``declare_options``). It declares; in the play
    退出 warns with the escape's points (rulings.md "Escapes": −3 × (60 − X)),
    and confirming ends the game with a settlement table that says I
    escaped, with those points in my row."""
    me = f"退出{secrets.token_hex(2)}"
    room = "hunzhan-10-01"
    page1 = await open_page(browser, platform, DESKTOP, me)
    bots: list[tuple[RecordingBot, asyncio.Task[None]]] = []
    try:
        bots = start_bots(platform, "hunzhan", room, [1, 2, 3], think=QUICK, declare_p=0)
        await sit_and_start(page1, "hunzhan-10", room, 0, 3)
        # A deal where I can declare (without a declaration a hunzhan deal is redealt).
        await page1.wait_for_function(
            "() => document.querySelectorAll('.declare-btn.lit').length > 0"
            " && window.paiju.S.game.phase === 'dealing'", timeout=60000)
        page2 = await sign_in_elsewhere(browser, platform, me)
        await page2.wait_for_function(
            "() => document.body.dataset.screen === 'table' &&"
            " document.querySelectorAll('.declare-btn.lit').length > 0", timeout=10000)
        await page2.screenshot(path=str(artifacts / "rejoin_declare.png"))
        assert await declare(page2), "the declare buttons of the view work"
        # Once the deal is done the note of the deal goes.
        await page2.wait_for_function(
            "() => { const g = window.paiju.S.game;"
            " return g && (g.dealing.done || g.phase === 'play')"
            " && !document.body.innerText.includes('发牌中，有牌即可'); }", timeout=40000)
        await page2.wait_for_function(
            "() => window.paiju.S.game && window.paiju.S.game.phase === 'play'", timeout=40000)
        await no_emoji(page2, "hunzhan play")

        await page2.click("#btn-leave")
        await page2.wait_for_selector("#leave-warning #escape-coins", timeout=5000)
        warned = int(await page2.inner_text("#escape-points"))
        coins = int(await page2.inner_text("#escape-coins"))
        text = await page2.inner_text("#leave-warning")
        assert "逃跑" in text, text
        g = await page2.evaluate(GAME_JS)
        # Nothing is captured before the first trick ends; the penalty for X < 60.
        x = g["captured"] or 0
        assert x < 60 and warned == -3 * (60 - x), (warned, x)
        # in coins: every 5 points (seed 000 最小单位) are the base's 10 coins
        assert coins == warned // 5 * 10, (coins, warned)
        await page2.screenshot(path=str(artifacts / "leave_warning.png"))
        await page2.click("#btn-leave-confirm")
        await page2.wait_for_function(
            "() => { const r = document.querySelector('.modal-box #settle-reason');"
            " return r && r.textContent.includes('你逃跑'); }", timeout=15000)
        await page2.screenshot(path=str(artifacts / "leave_escaped.png"))
        rows = await page2.evaluate(
            "() => [...document.querySelectorAll('.modal-box tbody tr')].map((tr) =>"
            " [tr.className, ...[...tr.children].map((td) => td.textContent)])")
        assert len(rows) == 4 and rows[0][0] == "mine" and rows[0][1] == me, rows
        assert int(rows[0][2]) == warned, (rows, warned)
        assert int(rows[0][3]) == coins, (rows, coins)
        rate = await page2.inner_text(".modal-box #settle-rate")
        assert "每 5 分 10 金币" in rate, rate
        assert await page2.evaluate("() => document.body.dataset.screen") == "rooms"
        assert not page2.errors, page2.errors
    finally:
        await stop_bots(bots, wait=0.1)


@pytest.mark.slow
async def test_game_ended_while_away_shows_its_settlement(platform: Platform, browser: Any,
                                                          artifacts: Path) -> None:
    """The player closes its only page mid-game on a server whose hold is 3 s:
    the table ends the game by its escape. Signing in later from a new
    context shows that game's settlement table (the sign-in reply's
    ``last_result``): my row loses what the others win; the game's settlement
    lines (``last_result.lines``), nothing cut at 390 px."""
    me = f"离开{secrets.token_hex(2)}"
    room = "doudizhu-hold-01"
    page1 = await open_page(browser, platform, DESKTOP, me)
    bots: list[tuple[RecordingBot, asyncio.Task[None]]] = []
    try:
        bots = start_bots(platform, "doudizhu", room, [1, 2], think=QUICK)
        await sit_and_start(page1, "doudizhu-hold", room, 0, 2)
        await page1.wait_for_function(
            "() => document.querySelectorAll('#hand .card').length === 17", timeout=20000)
        game_id = (await page1.evaluate(GAME_JS))["id"]
        await page1.context.close()
        # The bots see the game end (the hold of 3 s runs out: an escape).
        deadline = asyncio.get_running_loop().time() + 30
        while not any(ev.get("type") == "game_finished" and ev.get("game_id") == game_id
                      for ev in bots[0][0].events):
            assert asyncio.get_running_loop().time() < deadline, "the game did not end"
            await asyncio.sleep(0.1)
        page2 = await sign_in_elsewhere(browser, platform, me)
        await page2.wait_for_selector(".modal-box .settle-table tbody tr", timeout=10000)
        assert "离开期间" in await page2.inner_text(".modal-box")
        rows = await page2.evaluate(
            "() => [...document.querySelectorAll('.modal-box tbody tr')].map((tr) =>"
            " [tr.className, ...[...tr.children].map((td) => td.textContent)])")
        assert len(rows) == 3 and rows[0][0] == "mine" and rows[0][1] == me, rows
        assert int(rows[0][2]) < 0 < int(rows[1][2]), rows
        # the others by the names they sat with (last_result's names), not 座位N
        assert sorted(r[1] for r in rows[1:]) == sorted(b.name for b, _ in bots), rows
        # ... with the settlement lines of its game_finished, the
        # escapee first (你: seat 0), the labels in the server's order
        fin = next(ev for ev in bots[0][0].events
                   if ev.get("type") == "game_finished" and ev.get("game_id") == game_id)
        shown = await page2.evaluate(
            "() => [...document.querySelectorAll('.modal-box #settle-lines .sline')].map((l) =>"
            " [l.querySelector('dt').innerText.trim(), l.querySelector('dd').innerText.trim()])")
        assert [x[0] for x in shown] == [line["label"] for line in fin["lines"]], shown
        assert fin["lines"][0] == {"label": "逃跑", "seats": [0]} and shown[0] == ["逃跑", "你"]
        for (_, text), line in zip(shown, fin["lines"], strict=True):
            if not line.get("seats"):
                assert text == line.get("value", ""), (text, line)
        await page2.screenshot(path=str(artifacts / "missed_result.png"))
        await page2.set_viewport_size(PHONE)
        await page2.wait_for_timeout(150)
        await nothing_cut(page2, "the missed game at 390 px")
        await page2.screenshot(path=str(artifacts / "missed_result_390.png"))
        assert not page2.errors, page2.errors
    finally:
        await stop_bots(bots, wait=0.1)


@pytest.mark.slow
async def test_away_seat_then_its_escape_is_named(platform: Platform, browser: Any,
                                                  artifacts: Path) -> None:
    """A bot's connection ends mid-game on the server whose hold is 3 s: its
    seat shows 断线 with the seconds its hold has left (at most 3, rounded up on
    the page's estimate of the server's clock), then the
    table ends the game by its escape and the settlement table names it."""
    me = f"等人{secrets.token_hex(2)}"
    room = "doudizhu-hold-02"
    page = await open_page(browser, platform, DESKTOP, me)
    bots: list[tuple[RecordingBot, asyncio.Task[None]]] = []
    try:
        bots = start_bots(platform, "doudizhu", room, [1, 2], think=QUICK)
        await sit_and_start(page, "doudizhu-hold", room, 0, 2)
        await page.wait_for_function(
            "() => document.querySelectorAll('#hand .card').length === 17", timeout=20000)
        gone = bots[0][0]
        await stop_bots([bots[0]], wait=0)  # its connection closes
        await page.wait_for_function(
            "() => { const t = document.querySelector("
            "'#seats .pbox.offline[data-seat=\"1\"] .offline-mark .timer');"
            " return t && /^\\d+$/.test(t.textContent); }", timeout=10000)
        left = int(await page.inner_text('#seats .pbox[data-seat="1"] .offline-mark .timer'))
        # The hold is 3 s; the page counts it down on its estimate of the
        # server's clock (off by up to half a ping's round trip, hundreds of ms
        # on a loaded machine), rounded up: 4 at the very first tick at worst.
        assert 0 <= left <= 4, left
        await page.screenshot(path=str(artifacts / "away_seat.png"))
        await page.wait_for_selector("#settlement #settle-reason", timeout=15000)
        reason = await page.inner_text("#settlement #settle-reason")
        assert reason == f"{gone.name}逃跑，牌局结束", reason
        assert not page.errors, page.errors
    finally:
        await stop_bots(bots, wait=0.1)
