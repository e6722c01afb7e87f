"""A fifth game is one module and its registration.

tests/games/duel.py (对决, two seats, a trick game that exists for the tests
only) is registered by ``PAIJU_GAMES=tests.games.duel`` and a rooms file with
one coin server of it; nothing else changes. The platform's real processes
(the four services as ``paiju up`` runs them) load it; a browser player
(Chromium) and a bot (paiju.tools.bots) play a whole game to the settlement table:
the server sends the game's name, its phase label, its display (points,
badges, the side row) and the page draws them without knowing the game.

Screenshots (artifacts/web/): duel_game.png, duel_settlement.png.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.platform_procs import Platform
from tests.web.helpers import (
    DESKTOP,
    check_settlement,
    open_page,
    play_to_settlement,
    start_bots,
    stop_bots,
)
from tests.web.test_web_more import press_start, sit_down

pytestmark = [pytest.mark.timeout(240), pytest.mark.slow]

ROOMS = """\
servers:
  - {server: duel-10, name: 对决 10 金币场, game: duel, base: 10, min_coins: 10, rooms: 2}
"""


@pytest.fixture(scope="module")
def platform_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The registration: the module in ``PAIJU_GAMES`` and a rooms file with
    a coin server of the game."""
    rooms = tmp_path_factory.mktemp("duel") / "rooms.yaml"
    rooms.write_text(ROOMS, encoding="utf-8")
    yield {"GAMES": "tests.games.duel", "ROOMS_FILE": str(rooms)}


async def test_fifth_game_end_to_end(platform: Platform, browser: Any, artifacts: Path) -> None:
    """The browser player (seat 0) and a bot play 对决 to the settlement: the
    page names the game (servers, side panel, log), labels its phase with the
    game's own words (比大小), shows its side row and each seat's points, and
    the settlement has two rows whose points sum to zero (3 tricks each less
    than six: tricks − 3 per seat, the module's rule)."""
    me = f"对决{secrets.token_hex(2)}"
    room = "duel-10-01"
    page = await open_page(browser, platform, DESKTOP, me)
    await page.wait_for_selector(".game-group h3")
    heads = await page.eval_on_selector_all(".game-group h3 .gtitle",
                                            "els => els.map((e) => e.textContent)")
    assert heads == ["对决"], heads
    seats = await page.inner_text('.server[data-server="duel-10"] .srooms')
    assert "2 人" in seats, seats
    await sit_down(page, "duel-10", room, 0)
    bots = start_bots(platform, "duel", room, [1], think=(0.05, 0.1))
    try:
        await press_start(page, 1)
        await page.wait_for_function(
            "() => { const e = document.querySelector('#phase');"
            " return e && e.textContent === '比大小'; }",
            timeout=20000)
        side = await page.inner_text("#side")
        assert "对决" in side and "已出" in side, side
        assert await page.inner_text("#tricks") == "0/6 轮"
        log = await page.evaluate("() => window.paiju.S.log")
        assert "新的一局对决开始" in log, log
        done = await play_to_settlement(page, artifacts, "duel", limit=90)
        assert done.turns >= 3, done  # six tricks: the browser player plays six cards
        rows = await check_settlement(page, artifacts, "duel", me, 2)
        points = [int(r[2]) for r in rows]
        assert sum(points) == 0 and all(-3 <= p <= 3 for p in points), rows
        bot = bots[0][0]
        finished = [ev for ev in bot.events if ev.get("type") == "game_finished"]
        assert finished and finished[-1]["reason"] == "normal", finished
        tricks = finished[-1]["result"]["detail"]["tricks"]
        assert sum(tricks) == 6 and [t - 3 for t in tricks] == finished[-1]["result"]["points"]
        assert not page.errors, page.errors
    finally:
        await stop_bots(bots)
