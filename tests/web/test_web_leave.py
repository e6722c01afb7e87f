"""退出 outside a game is my own leave, never a kick, whatever order the
server's messages come in (real platform, Chromium).

The lobby's ``room_changed`` without me may reach the page before the reply
to my ``leave``; the page then must not say "你已被请出房间…" (the words of a
kick: not started in time, or not enough coins). The test holds the reply in
the page's WebSocket route until that ``room_changed`` went by.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures import until
from tests.platform_procs import Platform
from tests.web.helpers import DESKTOP

pytestmark = pytest.mark.timeout(300)


class HoldLeaveReply:
    """A WebSocket route passing every message through, except the reply to
    ``leave``: held until a ``room_changed`` of ``room`` without ``name`` was
    passed to the page (or for at most 5 s)."""

    def __init__(self, name: str, room: str) -> None:
        self.name, self.room = name, room
        self.leave_ids: set[Any] = set()
        self.held: str | bytes | None = None
        self.order: list[str] = []

    async def route(self, ws: Any) -> None:
        server = ws.connect_to_server()
        loop = asyncio.get_running_loop()

        def flush() -> None:
            if self.held is not None:
                msg, self.held = self.held, None
                self.order.append("leave reply")
                ws.send(msg)

        def from_page(msg: str | bytes) -> None:
            obj = json.loads(msg)
            if isinstance(obj, dict) and obj.get("cmd") == "leave":
                self.leave_ids.add(obj.get("id"))
            server.send(msg)

        def from_server(msg: str | bytes) -> None:
            obj = json.loads(msg)
            if obj.get("type") == "reply" and obj.get("id") in self.leave_ids:
                self.held = msg
                loop.call_later(5.0, flush)
                return
            ws.send(msg)
            if obj.get("type") == "room_changed" and obj.get("room") == self.room and \
                    self.leave_ids and all(s.get("name") != self.name for s in obj["seats"]):
                self.order.append("room_changed without me")
                flush()

        ws.on_message(from_page)
        server.on_message(from_server)


async def test_leave_whose_room_change_comes_first_is_no_kick(
        platform: Platform, browser: Any, artifacts: Path) -> None:
    me = f"走{secrets.token_hex(2)}"
    room = "doudizhu-10-03"
    hold = HoldLeaveReply(me, room)
    ctx = await browser.new_context(viewport=DESKTOP, device_scale_factor=1)
    page = await ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.route_web_socket(re.compile(r"^wss?://"), hold.route)
    await page.goto(f"http://127.0.0.1:{platform.gateway_port}/")
    await page.fill("#login-name", me)
    await page.click("#login-btn")
    await page.wait_for_selector(".server")
    await page.click('.server[data-server="doudizhu-10"]')
    await page.wait_for_selector(f'.room[data-room="{room}"] .rseat.free[data-seat="0"]')
    await page.click(f'.room[data-room="{room}"] .rseat.free[data-seat="0"]')
    await page.wait_for_selector("#btn-leave")
    await page.wait_for_function("() => !!window.paiju.S.room")
    await page.click("#btn-leave")
    await page.wait_for_function(
        "(room) => document.body.dataset.screen === 'rooms' &&"
        " !!document.querySelector(`.room[data-room='${room}'] .rseat.free[data-seat='0']`)",
        arg=room, timeout=15000)
    await until(lambda: len(hold.order) >= 2, "the leave reply passed on", 10)
    await page.wait_for_function(
        "(room) => document.body.dataset.screen === 'rooms' && !window.paiju.S.room &&"
        " !!document.querySelector(`.room[data-room='${room}'] .rseat.free[data-seat='0']`)",
        arg=room, timeout=15000)
    await page.screenshot(path=str(artifacts / "leave_room_change_first.png"))
    assert hold.order[:2] == ["room_changed without me", "leave reply"], hold.order
    toast = await page.inner_text("#toast")
    assert "请出" not in toast, toast
    assert await page.locator("#leave-warning").count() == 0
    assert not errors, errors
