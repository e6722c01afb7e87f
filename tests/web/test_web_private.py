"""Browser test (Chromium) of private rooms (好友房): three friends in three
browser contexts — one opens a 斗地主 private room from its server's 好友房
button and gets a code and a link, one joins with the 输入房间号 box, one
(on a 390-wide phone) by opening the link while signed in — play a game to
its settlement table; the owner alone sees 踢出 on the others' seats; a
fourth player without the code sees only the public rooms, and neither joins
(a wrong code) nor watches it by its id. Screenshots in artifacts/web/."""

from __future__ import annotations

import asyncio
import re
import secrets
from pathlib import Path
from typing import Any

import pytest

from tests.platform_procs import Platform
from tests.web.helpers import (
    DESKTOP,
    PHONE,
    check_settlement,
    no_horizontal_overflow,
    open_page,
    play_to_settlement,
)

ROOMS = """\
defaults: {fee_rate: 0.02, rooms: 2, ready_seconds: 20}
servers:
  - {server: doudizhu-10, name: 斗地主 10 金币场, game: doudizhu, base: 10, min_coins: 200}
"""


@pytest.fixture(scope="module")
def platform_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """This module's rooms file and the quicker deal."""
    rooms = tmp_path_factory.mktemp("rooms") / "rooms.yaml"
    rooms.write_text(ROOMS, encoding="utf-8")
    return {"ROOMS_FILE": str(rooms), "TABLE_DEAL_INTERVAL_MS": "60"}


def room_id_shown(text: str) -> bool:
    """Whether a private room's raw id (``<server>-x<12 hex>``) is in ``text``."""
    return bool(re.search(r"x[0-9a-f]{12}", text))


async def toast(page: Any, words: str) -> None:
    await page.wait_for_function(
        "(w) => (document.querySelector('#toast') || {}).textContent.includes(w)", arg=words,
        timeout=10000)


@pytest.mark.slow  # a whole game played by clicking on three pages
async def test_three_friends_play_a_private_room(platform: Platform, browser: Any,
                                                 artifacts: Path) -> None:
    tag = secrets.token_hex(2)
    owner = await open_page(browser, platform, DESKTOP, f"房主{tag}")
    await owner.click('.private-btn[data-server="doudizhu-10"]')
    await owner.click("#btn-create-private")
    await owner.wait_for_selector("#invite-dialog-code")
    code = (await owner.text_content("#invite-dialog-code")) or ""
    link = await owner.input_value("#invite-link")
    assert len(code) == 8 and link == \
        f"http://127.0.0.1:{platform.gateway_port}/#join={code}"
    await owner.screenshot(path=str(artifacts / "private_invite.png"))
    await owner.click('.modal-btns button[data-act="closeModal"]')
    assert await owner.text_content("#invite-code") == code
    assert "好友房" in await owner.inner_text("#side")
    assert room_id_shown(await owner.inner_text("#side")) is False

    one = await open_page(browser, platform, DESKTOP, f"朋友一{tag}")
    await one.fill("#join-code", code.lower())
    await one.click("#btn-join-code")
    await one.wait_for_selector("#btn-ready")
    two = await open_page(browser, platform, PHONE, f"朋友二{tag}")
    await no_horizontal_overflow(two)
    await two.goto(link)  # signed in already: the link joins
    await two.wait_for_selector("#btn-ready")
    rooms = await two.evaluate("() => window.paiju.S.room.seats.map((s) => s.seat)")
    assert sorted(rooms) == [0, 1, 2]

    # The fourth, without the code: the public rooms only; no join, no watch.
    out = await open_page(browser, platform, DESKTOP, f"路人{tag}")
    room_id = await owner.evaluate("() => window.paiju.S.room.room")
    await out.screenshot(path=str(artifacts / "private_servers.png"))
    await out.fill("#join-code", "22222222")
    await out.click("#btn-join-code")
    await toast(out, "没有这个房间号")
    await out.click('.server[data-server="doudizhu-10"]')
    await out.wait_for_selector(".room")
    assert await out.eval_on_selector_all(".room", "(rs) => rs.map((r) => r.dataset.room)") == [
        "doudizhu-10-01", "doudizhu-10-02"]
    await out.evaluate("(id) => window.paiju.actions.watch(id)", room_id)
    await toast(out, "没有这个房间")
    assert await out.evaluate("() => window.paiju.S.watch === null && !window.paiju.S.room")

    # 踢出: the owner's, on the two others' seats (not while playing).
    await owner.wait_for_function(
        "() => document.querySelectorAll('#seats .kick-btn').length === 2")
    assert await one.eval_on_selector_all("#seats .kick-btn", "(bs) => bs.length") == 0
    await owner.screenshot(path=str(artifacts / "private_owner.png"))
    for page in (owner, one, two):
        await page.click("#btn-ready")
    for page in (owner, one, two):
        await page.wait_for_selector("#hand .card", timeout=20000)
    assert await owner.eval_on_selector_all("#seats .kick-btn", "(bs) => bs.length") == 0
    await asyncio.gather(*(play_to_settlement(p, artifacts, f"private_{i}")
                           for i, p in enumerate((owner, one, two))))
    await check_settlement(owner, artifacts, "private", f"房主{tag}", 3)
    for page in (owner, one, two, out):
        assert not page.errors, page.errors
