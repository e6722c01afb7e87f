"""Browser test (Chromium) of relief coins (救济金): a player below every
server of a game sees 领取救济金 beside that game only, claims it with a
double click that pays once, and then sits; on a 390-wide phone the button
fits. Screenshots in artifacts/web/.

A development player starts with 100000 coins; 大A's only server needs
101000, 混战's 200000, 斗地主's 1000 (tests/gateway/test_relief.py ROOMS);
the relief is the default 2000 coins."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

import pytest

from tests.gateway.test_relief import ROOMS
from tests.platform_procs import Platform, rooms_env
from tests.web.helpers import DESKTOP, PHONE, no_horizontal_overflow, open_page


@pytest.fixture(scope="module")
def platform_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """This module's rooms file."""
    return rooms_env(tmp_path_factory, ROOMS)


async def test_a_broke_player_claims_relief_once_and_sits(platform: Platform, browser: Any,
                                                          artifacts: Path) -> None:
    page = await open_page(browser, platform, DESKTOP, f"救济{secrets.token_hex(2)}")
    assert await page.text_content("#me-coins") == "100000"
    buttons = await page.eval_on_selector_all(
        "button.relief", "(bs) => bs.map((b) => b.dataset.game)")
    assert buttons == ["daa", "hunzhan"]
    await page.screenshot(path=str(artifacts / "relief_button.png"))
    await page.dblclick('button.relief[data-game="daa"]')
    await page.wait_for_function(
        "() => document.querySelector('#me-coins').textContent === '102000'")
    # 102000 reaches 大A's server: its button is gone, and nothing more was paid
    await page.wait_for_selector('button.relief[data-game="daa"]', state="detached")
    assert await page.eval_on_selector_all(
        "button.relief", "(bs) => bs.map((b) => b.dataset.game)") == ["hunzhan"]
    assert await page.text_content("#me-coins") == "102000"
    await page.click('.server[data-server="daa-high"]')
    await page.click('.room[data-room="daa-high-01"] .rseat.free[data-seat="0"]')
    await page.wait_for_selector("#btn-ready")
    assert await page.evaluate("() => window.paiju.S.room.room") == "daa-high-01"
    assert not page.errors, page.errors


async def test_the_relief_button_fits_a_phone(platform: Platform, browser: Any,
                                              artifacts: Path) -> None:
    page = await open_page(browser, platform, PHONE, f"手机{secrets.token_hex(2)}")
    await page.wait_for_selector('button.relief[data-game="daa"]')
    await no_horizontal_overflow(page)
    await page.screenshot(path=str(artifacts / "relief_phone.png"))
    assert not page.errors, page.errors
