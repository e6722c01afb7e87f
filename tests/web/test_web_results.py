"""看分's point cards,
in real headless Chromium against the real platform (processes), at 1280 and
390 px.

- shengji (one deck): 看分 lists per seat the point cards it won (seed 004
  分牌: 5, 10 and K), during the game (the server's ``scores``, looked at in
  the player's own turn, when nothing moves) and after it (the final
  ``scores`` event); the expected cards come from the ``played`` and
  ``trick_won`` events a bot was sent. At 390 px the dialog, its cards, the
  settlement lines and the side buttons fit without being cut.

A game that ended while the player was away shows its lines:
tests/web/test_web_presence.py::test_game_ended_while_away_shows_its_settlement.

Screenshots (artifacts/web/): results_scores_1280.png, results_scores_390.png,
results_scores_after_390.png, results_settle_390.png.
"""

from __future__ import annotations

import random
import secrets
import time
from pathlib import Path
from typing import Any

import pytest

from tests.platform_procs import Platform
from tests.web.helpers import (
    DESKTOP,
    PHONE,
    SNAPSHOT_JS,
    Played,
    RecordingBot,
    declare,
    my_turn,
    nothing_cut,
    open_page,
    sit_and_start,
    start_bots,
    stop_bots,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

QUICK = (0.05, 0.1)
#: seed 004 分牌: 5, 10 (T) and K are the point cards.
POINT_RANKS = "5TK"

#: The rows of the open 看分 dialog: [name, points, [cards]].
SCORES_JS = """() => [...document.querySelectorAll('.modal-box table.scores tbody tr')].map((tr) =>
  [tr.children[0].innerText.trim(), tr.children[1].innerText.trim(),
   [...tr.children[2].querySelectorAll('.card')].map((c) => c.dataset.card)])"""


@pytest.fixture(scope="module")
def platform_env() -> dict[str, str]:
    """A quick paced deal (30 ms a card)."""
    return {"TABLE_DEAL_INTERVAL_MS": "30"}


def won_point_cards(bot: RecordingBot, game_id: str) -> list[list[str]]:
    """Per seat, the point cards of the tricks it won so far, in playing
    order, as the bot's ``played`` / ``trick_won`` events tell."""
    won: list[list[str]] = [[] for _ in range(4)]
    trick: list[str] = []
    for ev in bot.events:
        if ev.get("game_id") != game_id:
            continue
        if ev["type"] == "played":
            trick += [c for c in ev["cards"] if c[0] in POINT_RANKS]
        elif ev["type"] == "trick_won":
            won[ev["seat"]] += trick
            trick = []
    return won


async def open_scores(page: Any) -> list[list[Any]]:
    await page.click("#btn-scores", timeout=3000)
    await page.wait_for_selector(".modal-box table.scores", timeout=3000)
    rows: list[list[Any]] = await page.evaluate(SCORES_JS)
    return rows


async def close_modal(page: Any) -> None:
    await page.click(".modal-head .x", timeout=3000)
    await page.wait_for_selector(".modal-box", state="detached", timeout=3000)


async def test_shengji_scores_show_the_point_cards(platform: Platform, browser: Any,
                                                  artifacts: Path) -> None:
    me = f"分{secrets.token_hex(2)}"
    room = "shengji-1deck-10-03"
    page = await open_page(browser, platform, DESKTOP, me)
    bots = start_bots(platform, "shengji", room, [1, 2, 3], think=QUICK, declare_p=0)
    watcher = bots[0][0]
    checked: list[list[list[str]]] = []
    try:
        await sit_and_start(page, "shengji-1deck-10", room, 0, 3)
        done = Played()
        rng = random.Random(3)
        end = time.monotonic() + 150
        while time.monotonic() < end:
            s = await page.evaluate(SNAPSHOT_JS)
            if s["settle"]:
                break
            if s["declare"] and not done.declares:  # bots never declare: the page does
                done.declares += await declare(page)
                continue
            if s["play"] and s["hints"] not in (None, "") and s["phase"] in ("play", "burying"):
                game_id = await page.evaluate("() => window.paiju.S.game.id")
                won = won_point_cards(watcher, game_id)
                if s["phase"] == "play" and not checked and any(won):
                    # my turn: the game waits for me, nothing moves meanwhile
                    rows = await open_scores(page)
                    assert [r[2] for r in rows] == won, (rows, won)
                    await page.screenshot(path=str(artifacts / "results_scores_1280.png"))
                    await page.set_viewport_size(PHONE)
                    await page.keyboard.press("ArrowRight")  # the hand's cursor, focused
                    await page.wait_for_selector(".hand:focus-within .card.cursor", timeout=3000)
                    await page.wait_for_timeout(150)
                    await nothing_cut(page, "看分 at 390 px")
                    await page.screenshot(path=str(artifacts / "results_scores_390.png"))
                    await page.set_viewport_size(DESKTOP)
                    await close_modal(page)
                    checked.append(won)
                await my_turn(page, artifacts, "results", s, done, "")
                continue
            await page.wait_for_timeout(40 + rng.randrange(20))
        else:
            raise AssertionError("no settlement table in 150 s")
        assert checked, "看分 was looked at with point cards won"
        game_id = await page.evaluate("() => window.paiju.S.result.game_id")
        won = won_point_cards(watcher, game_id)
        assert sum(map(len, won)) > 0
        # after the game: the point cards of the whole game, the points beside them
        rows = await open_scores(page)
        assert [r[2] for r in rows] == won, (rows, won)
        fin = next(e for e in watcher.events
                   if e.get("game_id") == game_id and e["type"] == "game_finished")
        assert [int(r[1]) for r in rows] == fin["result"]["detail"]["captured"]
        await page.set_viewport_size(PHONE)
        await page.wait_for_timeout(150)
        await nothing_cut(page, "看分 after the game at 390 px")
        await page.screenshot(path=str(artifacts / "results_scores_after_390.png"))
        await close_modal(page)
        await page.wait_for_selector("#settlement #settle-lines", timeout=5000)
        await nothing_cut(page, "the settlement at 390 px")
        await page.screenshot(path=str(artifacts / "results_settle_390.png"))
        assert not page.errors, page.errors
    finally:
        await stop_bots(bots, wait=0.1)
