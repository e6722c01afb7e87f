"""Browser test (Chromium) of the rules at hand (规则说明): 规则 opens the
game's rules from the server list, the room list and the table, at 1280 and
390 px; a game ended by an escape (a server whose disconnect hold is 3 s)
shows its settlement at the next sign-in, and its 逃跑 line opens the rules
at the section that produced it. Screenshots in artifacts/web/."""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path
from typing import Any

import pytest

from tests.platform_procs import Platform, rooms_env
from tests.web.helpers import (
    DESKTOP,
    PHONE,
    RecordingBot,
    no_horizontal_overflow,
    open_page,
    sit_and_start,
    start_bots,
    stop_bots,
)

pytestmark = pytest.mark.timeout(240)

ROOMS = """\
defaults: {fee_rate: 0.02, rooms: 2, ready_seconds: 20}
servers:
  - {server: ddz-hold, name: 斗地主 短等待场, game: doudizhu, base: 10, min_coins: 200,
     options: {reconnect_seconds: 3}}
"""


@pytest.fixture(scope="module")
def platform_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """This module's rooms file."""
    return rooms_env(tmp_path_factory, ROOMS)


async def open_rules(page: Any, button: str) -> list[str]:
    """Click ``button`` and return the panel's section titles."""
    await page.click(button)
    await page.wait_for_selector("#rules-panel .rule h4")
    assert "斗地主 规则说明" in await page.inner_text(".modal-head")
    titles: list[str] = await page.eval_on_selector_all(
        "#rules-panel .rule h4", "(hs) => hs.map((h) => h.textContent)")
    return titles


async def close_modal(page: Any) -> None:
    await page.click(".modal-head .x")
    await page.wait_for_selector("#rules-panel", state="detached")


async def test_rules_from_lists_table_and_a_settlement_line(
        platform: Platform, browser: Any, artifacts: Path) -> None:
    me = f"规则{secrets.token_hex(2)}"
    page = await open_page(browser, platform, DESKTOP, me)
    titles = await open_rules(page, "#btn-rules-doudizhu")
    assert "炸弹与王炸" in titles and "倍数" in titles, titles
    await close_modal(page)
    bots: list[tuple[RecordingBot, asyncio.Task[None]]] = []
    try:
        bots = start_bots(platform, "doudizhu", "ddz-hold-01", [1, 2], think=(0.05, 0.1))
        await page.click('.server[data-server="ddz-hold"]')
        assert "叫地主与抢地主" in await open_rules(page, "#btn-rules-rooms")
        await close_modal(page)
        await page.click(".bar [data-act=backToServers]")
        await sit_and_start(page, "ddz-hold", "ddz-hold-01", 0, 2)
        await page.wait_for_function(
            "() => document.querySelectorAll('#hand .card').length === 17", timeout=20000)
        assert "春天与反春" in await open_rules(page, "#btn-rules")
        await page.screenshot(path=str(artifacts / "rules_table.png"))
        await page.set_viewport_size(PHONE)
        await page.wait_for_function("() => window.innerWidth === 390")
        await no_horizontal_overflow(page)
        await page.screenshot(path=str(artifacts / "rules_table_390.png"))
        game_id = await page.evaluate("() => window.paiju.S.game.id")
        await page.context.close()  # away: the 3 s hold ends the game by my escape
        deadline = asyncio.get_running_loop().time() + 30
        while not any(ev.get("type") == "game_finished" and ev.get("game_id") == game_id
                      for ev in bots[0][0].events):
            assert asyncio.get_running_loop().time() < deadline, "the game did not end"
            await asyncio.sleep(0.1)
        page2 = await open_page(browser, platform, PHONE, me)
        link = ".modal-box #settle-lines button.rule-link[data-label='逃跑']"
        await page2.wait_for_selector(link, timeout=10000)
        await page2.click(link)
        await page2.wait_for_selector("#rules-panel #rule-escape.open")
        opened = await page2.eval_on_selector_all(
            "#rules-panel .rule.open h4", "(hs) => hs.map((h) => h.textContent)")
        assert opened == ["逃跑"], opened
        await no_horizontal_overflow(page2)
        await page2.screenshot(path=str(artifacts / "rules_line_390.png"))
        assert not page2.errors, page2.errors
    finally:
        await stop_bots(bots, wait=0.1)
