"""Playing a whole game in the browser with the keyboard only.

The player never clicks: it types its name and presses Enter, presses Tab
until the wanted server, seat or button has the focus and presses Enter,
and plays with the keys of services/gateway/static/js/keys.js: ← → to move
along the hand, Space to select, Enter to play (or bury), P to pass, H for the
server's hint, digits for the action bar's buttons (bids, declares, 亮明).
The page is read (the DOM, ``window.paiju``) only to decide what to press.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.platform_procs import Platform
from tests.web.helpers import SNAPSHOT_JS

#: The enabled buttons of the action bar, in order (what the digit keys press).
BAR_JS = """() => [...document.querySelectorAll('#actions button:not([disabled])')].map((b) =>
  ({ id: b.id, kind: b.dataset.kind || '', act: b.dataset.act || '',
     lit: b.classList.contains('lit') }))"""

#: Screen-reader labels now: hand cards, buttons, seats.
LABELS_JS = """() => {
  const name = (el) => (el.getAttribute('aria-label') || el.innerText || '').trim();
  const visible = (el) => el.offsetParent !== null;
  return {
    hand: document.querySelector('#hand').getAttribute('role'),
    cards: [...document.querySelectorAll('#hand .card')].map((c) =>
      [c.getAttribute('role'), c.getAttribute('aria-label'), c.getAttribute('aria-selected')]),
    buttons: [...document.querySelectorAll('button')].filter(visible).map((b) =>
      [b.id || b.className, name(b) || [...b.querySelectorAll('[aria-label]')].map(name).join('')]),
    seats: [...document.querySelectorAll('#seats .pbox')].map((p) => p.getAttribute('aria-label')),
  };
}"""


@dataclass
class KeyPlay:
    """What the keyboard player did in one game."""

    turns: int = 0
    bids: int = 0
    declares: int = 0
    passes: int = 0
    buries: int = 0
    reveals: int = 0
    space_checked: bool = False
    labels: dict[str, Any] = field(default_factory=dict)
    multipliers: list[tuple[str, int]] = field(default_factory=list)
    roles_seen: list[list[Any]] = field(default_factory=list)


async def tab_to(page: Any, selector: str, limit: int = 250) -> None:
    """Press Tab until the element ``selector`` has the focus."""
    for _ in range(limit):
        if await page.evaluate("(s) => !!document.activeElement &&"
                               " document.activeElement.matches(s)", selector):
            return
        await page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


async def press_on(page: Any, selector: str, done_js: str, tries: int = 4) -> None:
    """Tab to ``selector`` and press Enter, until ``done_js`` holds (the page
    may redraw the element between the focus and the key)."""
    for _ in range(tries):
        await tab_to(page, selector)
        await page.keyboard.press("Enter")
        try:
            await page.wait_for_function(done_js, timeout=4000)
            return
        except Exception as e:
            if "Timeout" not in type(e).__name__:
                raise
    raise AssertionError(f"Enter on {selector} did nothing")


async def open_by_keyboard(browser: Any, platform: Platform, viewport: dict[str, int],
                           name: str) -> Any:
    """A new page signed in as ``name``: typed into the focused name field, Enter."""
    ctx = await browser.new_context(viewport=viewport, device_scale_factor=1)
    page = await ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    await page.goto(f"http://127.0.0.1:{platform.gateway_port}/")
    await page.wait_for_function("() => document.activeElement &&"
                                 " document.activeElement.id === 'login-name'")
    await page.keyboard.type(name)
    await page.keyboard.press("Enter")
    await page.wait_for_selector(".server")
    return page


async def sit_by_keyboard(page: Any, server: str, room: str, seat: int) -> None:
    """Tab to the server, Enter; Tab to the free seat, Enter."""
    await press_on(page, f'.server[data-server="{server}"]',
                   "() => !!document.querySelector('.room')")
    await press_on(page, f'.room[data-room="{room}"] .rseat.free[data-seat="{seat}"]',
                   "() => !!document.querySelector('#btn-ready')")


async def start_by_keyboard(page: Any) -> None:
    """Tab to 开始, Enter: the page shows it is ready (or the game starts)."""
    await press_on(page, "#btn-ready", "() => !document.querySelector('#btn-ready')")


async def play_by_keyboard(page: Any, artifacts: Path, prefix: str, *, declare: bool,
                           limit: float = 150, on_turn: Any = None) -> KeyPlay:
    """Play the browser player's turns with keys until the settlement table.
    ``declare``: press the first lit declare button once when one lights up.
    ``on_turn(page, done)``: awaited at each turn of play, before the keys."""
    done = KeyPlay()
    rng = random.Random(11)
    end = time.monotonic() + limit
    s: dict[str, Any] = {}
    while time.monotonic() < end:
        s = await page.evaluate(SNAPSHOT_JS)
        if s["settle"]:
            return done
        bar = await page.evaluate(BAR_JS)
        if s["bids"]:
            bids = [i for i, b in enumerate(bar) if b["act"] == "bid"]
            await page.keyboard.press(str(rng.choice(bids) + 1))
            done.bids += 1
            await page.wait_for_timeout(200)
            continue
        if declare and s["declare"] and not done.declares:
            lit = [i for i, b in enumerate(bar) if b["lit"]]
            if lit:
                await page.keyboard.press(str(lit[0] + 1))
                try:
                    await page.wait_for_function(
                        "() => { const g = window.paiju.S.game;"
                        " return !!(g && g.declared && g.declared.seat === g.mySeat); }",
                        timeout=2500)
                    done.declares += 1
                except Exception as e:
                    if "Timeout" not in type(e).__name__:
                        raise
            continue
        if s["play"] and s["hints"] not in (None, "") and s["phase"] in ("play", "burying"):
            await keyboard_turn(page, artifacts, prefix, s, bar, done, on_turn)
            continue
        await page.wait_for_timeout(50)
    raise AssertionError(f"no settlement table within {limit} s: {s}")


async def keyboard_turn(page: Any, artifacts: Path, prefix: str, s: dict[str, Any],
                        bar: list[dict[str, Any]], done: KeyPlay, on_turn: Any) -> None:
    """One turn: 亮明 by its digit where offered; once, ← → and Space select
    and unselect a card; then H (the server's hint) and Enter, or P."""
    if on_turn is not None:
        await on_turn(page, done)
    reveal = [i for i, b in enumerate(bar) if b["id"] == "btn-reveal"]
    if reveal:
        await page.keyboard.press(str(reveal[0] + 1))
        await page.wait_for_selector("#btn-reveal", state="detached", timeout=5000)
        done.reveals += 1
        return
    done.turns += 1
    if not done.labels:
        done.labels = await page.evaluate(LABELS_JS)
        await page.screenshot(path=str(artifacts / f"{prefix}_keys_turn.png"))
    if not done.space_checked and len(s["hand"]) >= 3:
        await page.keyboard.press("Home")
        await page.keyboard.press("ArrowRight")
        await page.keyboard.press("ArrowRight")
        focused = await page.evaluate(
            "() => [document.activeElement.dataset.i, document.activeElement.getAttribute('role')]")
        assert focused == ["2", "option"], f"→ → moves the cursor to the third card: {focused}"
        await page.keyboard.press(" ")
        await page.wait_for_selector('#hand .card[data-i="2"][aria-selected="true"].sel',
                                     timeout=3000)
        await page.keyboard.press("ArrowLeft")
        await page.keyboard.press("ArrowRight")
        await page.keyboard.press(" ")
        await page.wait_for_selector('#hand .card[data-i="2"][aria-selected="false"]:not(.sel)',
                                     timeout=3000)
        done.space_checked = True
    playable = await page.evaluate(
        "() => window.paiju.S.game.hints.some((a) => a.type === 'play' || a.type === 'bury')")
    try:
        if not playable:
            await page.keyboard.press("p")
            done.passes += 1
        else:
            burying = s["phase"] == "burying"
            await page.keyboard.press("ArrowLeft")  # the focus in the hand, not on a button
            await page.keyboard.press("h")
            await page.keyboard.press("Enter")
            if burying:
                done.buries += 1
        await page.wait_for_function(
            "() => !document.querySelector('#btn-play') ||"
            " document.querySelector('#btn-play').dataset.check === 'none'", timeout=6000)
    except Exception as e:  # the turn moved on (a timeout) meanwhile: go on
        if "Timeout" not in type(e).__name__:
            raise
