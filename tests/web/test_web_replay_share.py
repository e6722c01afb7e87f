"""Shared replays (分享) in real headless Chromium, against the platform as
processes: three bots play a doudizhu game; one of them signs in, opens the
game's replay from 战绩, presses 分享 and copies the link (复制); the link
opens the replay viewer in a fresh browser context that never signs in, at
1280 and at 390 px wide (every hand of the deal as the stored record holds
it); the owner revokes the share from 我的分享 (撤销); the link then opens
only the refusal (分享者已撤销这个回放链接).

Screenshots (artifacts/web/): share_link.png, share_opened.png,
share_opened_phone.png, shares_list.png, share_revoked.png.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.platform_procs import Platform, after_one_game
from tests.web.helpers import DESKTOP, PHONE, fresh_page, no_horizontal_overflow
from tests.web.test_web_records import REPLAY_JS, settled_record, sign_in

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

SERVER = "doudizhu-10"
REVOKED = "分享者已撤销这个回放链接"


@pytest.fixture(scope="module")
def platform(chromium: str) -> Iterator[tuple[Platform, list[str]]]:
    """The platform, after three bots played one doudizhu game (their names)."""
    with after_one_game("wsh", f"{SERVER}-03") as played:
        yield played


async def open_link(browser: Any, url: str, viewport: dict[str, int]) -> Any:
    page = await fresh_page(browser, viewport)
    await page.goto(url)
    return page


async def test_share_open_and_revoke(browser: Any, platform: tuple[Platform, list[str]],
                                     artifacts: Path) -> None:
    p, names = platform
    record = settled_record(p)
    game_id = record["game_id"]
    page = await sign_in(browser, p, DESKTOP, names[0])
    await page.click("#btn-history")
    await page.click(f'.hist-row[data-game="{game_id}"] [data-rec="replay"]')
    await page.wait_for_selector("#rp-share")
    await page.click("#rp-share")
    await page.wait_for_selector("#share-link")
    url = await page.input_value("#share-link")
    assert url.startswith(f"http://127.0.0.1:{p.gateway_port}/#replay={game_id}&link="), url
    await page.click("#share-copy")
    await page.wait_for_function(
        "() => document.querySelector('#toast').textContent === '已复制链接'")
    await page.screenshot(path=str(artifacts / "share_link.png"), full_page=True)

    deal = [Counter(h) for h in record["deal"]["hands"]]
    for viewport, shot in ((DESKTOP, "share_opened.png"), (PHONE, "share_opened_phone.png")):
        viewer = await open_link(browser, url, viewport)
        await viewer.wait_for_function("() => { const s = document.querySelector('#rp-step');"
                                       " return s && s.dataset.step === '0'; }")
        assert await viewer.evaluate("() => document.body.dataset.screen") == "replay"
        shown = await viewer.evaluate(REPLAY_JS)
        assert [Counter(h["cards"]) for h in sorted(shown["hands"], key=lambda h: h["seat"])] \
            == deal
        assert "分享的回放" in await viewer.inner_text("#screen-replay .bar .terms")
        assert await viewer.query_selector("#rp-share") is None
        if viewport is PHONE:
            await no_horizontal_overflow(viewer)
        await viewer.screenshot(path=str(artifacts / shot), full_page=True)
        assert viewer.errors == []
        await viewer.context.close()

    # 我的分享 → 撤销
    await page.click('#share-box [data-rec="shares"]')
    row = '#shares-list .share-row'
    await page.wait_for_selector(row)
    assert await page.eval_on_selector_all(row, "(els) => els.length") == 1
    await page.screenshot(path=str(artifacts / "shares_list.png"), full_page=True)
    await page.click(f"{row} .sh-revoke")
    await page.wait_for_function(
        "() => !document.querySelector('#shares-list .share-row')"
        " && !!document.querySelector('#shares-list .note')")
    assert page.errors == []

    for viewport in (DESKTOP, PHONE):
        viewer = await open_link(browser, url, viewport)
        await viewer.wait_for_function(
            "(t) => document.querySelector('#login-status').textContent === t", arg=REVOKED)
        assert await viewer.evaluate("() => document.body.dataset.screen") == "login"
        assert await viewer.query_selector("#rp-step") is None
        if viewport is DESKTOP:
            await viewer.screenshot(path=str(artifacts / "share_revoked.png"), full_page=True)
        assert viewer.errors == []
        await viewer.context.close()
