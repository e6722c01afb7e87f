"""The replay under ``paiju up`` itself, in real headless Chromium.

``paiju up`` is started as README says (a port base and a data folder,
nothing else: no test launcher, no test settings); three bots finish a
doudizhu game at its gateway. The browser signs in as one of them, opens 战绩,
opens the game's 回放 and steps to the end (结束), where every hand shown is
the deal (the landlord with the kitty) less every card that seat played. Then
an operator's link, made by ``paiju replay-link`` beside that ``paiju up``
(README "Replaying a game record": ``PAIJU_DEV_MODE=1`` and the same port
base), opens the same viewer without a sign-in and is stepped to the end too.

Expectations come from the stored record (the table's database file in the
data folder) and the rules (records.md), as in test_web_records.py.
Screenshots (artifacts/web/): up_replay_end.png, up_replay_link_end.png.
"""

from __future__ import annotations

import asyncio
import random
import secrets
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from paiju.tools.bots import Bot, Stats
from tests.paiju_up import ROOT, running_up
from tests.web.helpers import DESKTOP
from tests.web.test_web_records import SERVER, counters, hands_after, open_replay, settled_in

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]


@pytest.fixture(scope="module")
def up(tmp_path_factory: pytest.TempPathFactory
       ) -> Iterator[tuple[dict[str, str], int, Path, list[str]]]:
    """``paiju up`` after three bots played one doudizhu game at its gateway:
    (the environment it runs in, its port base, its data folder, the bots'
    names)."""
    with running_up(tmp_path_factory.mktemp("up")) as up:
        run = secrets.token_hex(3)
        names = [f"up{seat}-{run}" for seat in range(3)]

        async def play() -> None:
            stats = Stats()
            bots = [Bot(up.gateway_url, n, "doudizhu", f"{SERVER}-02", seat,
                        1, (0.0, 0.0), stats, random.Random(seat))
                    for seat, n in enumerate(names)]
            await asyncio.wait_for(asyncio.gather(*(b.run() for b in bots)), timeout=150)

        asyncio.run(play())
        yield up.env, up.base, up.data, names


async def at_the_end(page: Any, record: dict[str, Any]) -> dict[str, Any]:
    """Click 结束 (``#rp-last``) and return the replay as shown at the last step."""
    await page.click("#rp-last")
    await page.wait_for_function(
        "(n) => Number(document.querySelector('#rp-step').dataset.step) === n",
        arg=len(record["actions"]))
    shown: dict[str, Any] = await page.evaluate(
        "() => ({step: Number(document.querySelector('#rp-step').dataset.step),"
        " hands: [...document.querySelectorAll('.rp-seat')].map((el) => ({"
        " seat: Number(el.dataset.seat), cards: [...el.querySelectorAll('.rp-hand .card')]"
        ".map((c) => c.dataset.card)}))})")
    return shown


async def test_the_replay_opens_from_the_history_and_from_a_link_under_paiju_up(
        browser: Any, up: tuple[dict[str, str], int, Path, list[str]],
        artifacts: Path) -> None:
    env, base, data, names = up
    record = settled_in(data / "table.db")
    end = hands_after(record, len(record["actions"]))

    # A player: 战绩 -> 回放 -> the end.
    ctx = await browser.new_context(viewport=DESKTOP, device_scale_factor=1)
    page = await ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.goto(f"http://127.0.0.1:{base + 80}/")
    await page.fill("#login-name", names[0])
    await page.click("#login-btn")
    await page.wait_for_selector("#btn-history")
    shown = await open_replay(page, artifacts, "_up", record["game_id"])
    assert counters(shown) == [Counter(h) for h in record["deal"]["hands"]]
    shown = await at_the_end(page, record)
    assert counters(shown) == end
    await page.screenshot(path=str(artifacts / "up_replay_end.png"), full_page=True)

    # An operator's link, made as README says beside this paiju up.
    made = subprocess.run([sys.executable, "-m", "paiju.cli", "replay-link", record["game_id"]],
                          env=env | {"PAIJU_DEV_MODE": "1"}, cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=False)
    assert made.returncode == 0, made.stderr
    url = made.stdout.strip()
    assert url.startswith(f"http://127.0.0.1:{base + 80}/#replay={record['game_id']}&link="), url
    viewer = await (await browser.new_context(viewport=DESKTOP, device_scale_factor=1)).new_page()
    viewer.on("pageerror", lambda e: errors.append(str(e)))
    await viewer.goto(url)
    await viewer.wait_for_function("() => { const s = document.querySelector('#rp-step');"
                                   " return s && s.dataset.step === '0'; }")
    assert await viewer.evaluate("() => document.body.dataset.screen") == "replay"
    shown = await at_the_end(viewer, record)
    assert counters(shown) == end
    await viewer.screenshot(path=str(artifacts / "up_replay_link_end.png"), full_page=True)
    assert errors == []
