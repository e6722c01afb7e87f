"""战绩 (history), the replay viewer and the rankings in real headless
Chromium, against the platform as processes.

Three bots play a doudizhu game to its settlement; the browser then signs in
as one of them (development login by name, by clicking), opens 战绩, opens
the game's replay from it and steps with the buttons: 下一墩 to the end of
the last trick, where every hand shown is the deal (the landlord with the
kitty) less every card that seat played in the record; 上一步 back, where
the last player has its last cards in hand again; 上一墩 back to an earlier
trick; 开始 back to the deal. An operator's replay link (``paiju
replay-link``) opens the same viewer without a sign-in, stepped to the end.
Then the rankings page of the server: the three players in order of the
coins the record's settlement gives them. The same at 390 px wide, with
nothing wider than the screen.

Expectations come from the stored record (read from the table's database
file) and the rules (records.md: a play takes its cards from the hand; the
landlord takes the kitty), not from the page's code.

Screenshots (artifacts/web/): history.png, replay_deal.png,
replay_last_trick.png, replay_operator.png, rankings.png, history_phone.png, replay_phone.png,
rankings_phone.png.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.platform_procs import Platform, after_one_game
from tests.web.helpers import DESKTOP, PHONE, fresh_page, no_emoji, no_horizontal_overflow

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

SERVER = "doudizhu-10"

#: The replay as the page shows it: step, hands by seat (cards drawn), cards out.
REPLAY_JS = """() => {
  const st = document.querySelector('#rp-step');
  if (!st) return null;
  return {
    step: Number(st.dataset.step), steps: Number(st.dataset.steps),
    hands: [...document.querySelectorAll('.rp-seat')].map((el) => ({
      seat: Number(el.dataset.seat),
      cards: [...el.querySelectorAll('.rp-hand .card')].map((c) => c.dataset.card),
    })),
  };
}"""


@pytest.fixture(scope="module")
def platform(chromium: str) -> Iterator[tuple[Platform, list[str]]]:
    """The platform, after three bots played one doudizhu game (their names)."""
    with after_one_game("web", f"{SERVER}-02") as played:
        yield played


def settled_record(p: Platform) -> dict[str, Any]:
    return settled_in(p.data / "table.db")


def settled_in(db: Path) -> dict[str, Any]:
    """The one settled game's record in the table database file ``db``."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT record_json FROM table_game_records "
                            "WHERE reason != 'redeal'").fetchall()
    assert len(rows) == 1
    record: dict[str, Any] = json.loads(rows[0][0])
    return record


def hands_after(record: dict[str, Any], upto: int) -> list[Counter[str]]:
    """Each seat's hand after the first ``upto`` actions, by the rules: the
    deal, the kitty to the landlord once the bidding is over (with the last
    bid, just before the first play), less the cards each seat played."""
    hands = [Counter(h) for h in record["deal"]["hands"]]
    first_play = next(i for i, a in enumerate(record["actions"]) if a["type"] == "play")
    if upto >= first_play:
        hands[record["result"]["detail"]["landlord"]] += Counter(record["deal"]["bottom"])
    for a in record["actions"][:upto]:
        if a["type"] == "play":
            hands[a["seat"]] -= Counter(a["cards"])
    return hands


async def sign_in(browser: Any, p: Platform, viewport: dict[str, int], name: str,
                  signed_in: str = "#btn-history") -> Any:
    """A new page signed in as ``name`` by clicking, once ``signed_in`` shows
    (it may land at its table)."""
    page = await fresh_page(browser, viewport)
    await page.goto(f"http://127.0.0.1:{p.gateway_port}/")
    await page.fill("#login-name", name)
    await page.click("#login-btn")
    await page.wait_for_selector(signed_in)
    return page


async def open_replay(page: Any, artifacts: Path, prefix: str, game_id: str) -> dict[str, Any]:
    await page.click("#btn-history")
    await page.wait_for_selector(f'.hist-row[data-game="{game_id}"]')
    await page.screenshot(path=str(artifacts / f"history{prefix}.png"), full_page=True)
    # The table as the table panel names it (docs/web-client.md), never the room id.
    where = await page.inner_text(f'.hist-row[data-game="{game_id}"] .h-where')
    assert where.endswith("02 号桌") and SERVER not in where, where
    await page.click(f'.hist-row[data-game="{game_id}"] [data-rec="replay"]')
    await page.wait_for_function("() => { const s = document.querySelector('#rp-step');"
                                 " return s && s.dataset.step === '0'; }")
    terms = await page.inner_text("#screen-replay .bar .terms")
    assert terms.startswith("02 号桌") and SERVER not in terms, terms
    shown: dict[str, Any] = await page.evaluate(REPLAY_JS)
    return shown


async def click_to(page: Any, button: str, moved_from: int) -> dict[str, Any]:
    """Click ``button`` and wait for the step to change from ``moved_from``."""
    await page.click(button)
    await page.wait_for_function(
        "(s) => Number(document.querySelector('#rp-step').dataset.step) !== s", arg=moved_from)
    shown: dict[str, Any] = await page.evaluate(REPLAY_JS)
    return shown


async def pick_server(page: Any) -> None:
    """Open the rankings from the top bar and choose :data:`SERVER`."""
    await page.click("#btn-rankings")
    await page.wait_for_selector("#rk-server")
    await page.select_option("#rk-server", SERVER)
    await page.wait_for_selector(f'#rk-title[data-server="{SERVER}"]')


def counters(shown: dict[str, Any]) -> list[Counter[str]]:
    return [Counter(h["cards"]) for h in sorted(shown["hands"], key=lambda h: h["seat"])]


async def test_replay_from_the_history_to_the_last_trick_and_back(
        browser: Any, platform: tuple[Platform, list[str]], artifacts: Path) -> None:
    p, names = platform
    record = settled_record(p)
    actions = record["actions"]
    page = await sign_in(browser, p, DESKTOP, names[0])
    shown = await open_replay(page, artifacts, "", record["game_id"])
    assert shown["steps"] == len(actions) + 1
    assert counters(shown) == [Counter(h) for h in record["deal"]["hands"]]
    await page.screenshot(path=str(artifacts / "replay_deal.png"), full_page=True)

    # 下一墩 until the last trick's end (the game's last step: the last play ends it)
    for _ in range(len(actions)):
        if shown["step"] == len(actions):
            break
        shown = await click_to(page, "#rp-next-trick", shown["step"])
    assert shown["step"] == len(actions)
    assert counters(shown) == hands_after(record, len(actions))
    if record["reason"] == "normal":
        assert min(len(h["cards"]) for h in shown["hands"]) == 0
    await page.screenshot(path=str(artifacts / "replay_last_trick.png"), full_page=True)
    await no_emoji(page, "replay")

    # and back: one step, then a trick, then the deal
    last = actions[-1]
    shown = await click_to(page, "#rp-prev", shown["step"])
    assert shown["step"] == len(actions) - 1
    assert counters(shown) == hands_after(record, len(actions) - 1)
    if last["type"] == "play":
        mine = next(h for h in shown["hands"] if h["seat"] == last["seat"])
        assert Counter(last["cards"]) <= Counter(mine["cards"])
    before = shown["step"]
    shown = await click_to(page, "#rp-prev-trick", before)
    assert 0 <= shown["step"] < before
    assert counters(shown) == hands_after(record, shown["step"])
    shown = await click_to(page, "#rp-first", shown["step"])
    assert shown["step"] == 0 and counters(shown) == [Counter(h) for h in record["deal"]["hands"]]
    assert page.errors == []


async def test_rankings_page(browser: Any, platform: tuple[Platform, list[str]],
                             artifacts: Path) -> None:
    p, names = platform
    record = settled_record(p)
    page = await sign_in(browser, p, DESKTOP, names[1])
    await pick_server(page)
    await page.wait_for_selector("table.rk tbody tr")
    shown = await page.evaluate("""() => [...document.querySelectorAll('table.rk tbody tr')]
      .map((tr) => [...tr.querySelectorAll('td')].map((td) =>
        (td.querySelector('.rk-name') || td).innerText.trim()))""")
    name_of = {x["seat"]: x["name"] for x in record["players"]}
    won = {name_of[r["seat"]]: r["coins"] for r in record["settlement"]}
    assert sorted((row[1], int(row[2])) for row in shown) == sorted(won.items())
    assert [int(row[2]) for row in shown] == sorted(won.values(), reverse=True)
    assert all(row[3] == "1" for row in shown)
    rank = 1 + sum(1 for c in won.values() if c > won[names[1]])
    me = await page.inner_text("#rk-me")
    assert f"第 {rank} 名" in me.replace("\n", " ")
    assert await page.locator("table.rk tr.mine").count() == 1
    await page.screenshot(path=str(artifacts / "rankings.png"), full_page=True)
    await no_emoji(page, "rankings")
    assert page.errors == []


async def test_history_replay_and_rankings_at_390px(
        browser: Any, platform: tuple[Platform, list[str]], artifacts: Path) -> None:
    p, names = platform
    record = settled_record(p)
    page = await sign_in(browser, p, PHONE, names[2])
    shown = await open_replay(page, artifacts, "_phone", record["game_id"])
    await no_horizontal_overflow(page)
    shown = await click_to(page, "#rp-last", shown["step"])
    assert counters(shown) == hands_after(record, len(record["actions"]))
    await no_horizontal_overflow(page)
    await page.screenshot(path=str(artifacts / "replay_phone.png"), full_page=True)
    await pick_server(page)
    await page.wait_for_selector("table.rk tr.mine")
    await no_horizontal_overflow(page)
    await page.screenshot(path=str(artifacts / "rankings_phone.png"), full_page=True)
    assert page.errors == []


async def test_an_operator_link_opens_the_viewer_without_a_sign_in(
        browser: Any, platform: tuple[Platform, list[str]], artifacts: Path) -> None:
    p, _ = platform
    record = settled_record(p)
    url = subprocess.run(
        [sys.executable, "-m", "paiju.cli", "replay-link", record["game_id"],
         "--base", f"http://127.0.0.1:{p.gateway_port}/", "--ttl", "600"],
        check=True, capture_output=True, text=True,
        env={**os.environ, "PAIJU_DEV_MODE": "1"}).stdout.strip()
    ctx = await browser.new_context(viewport=DESKTOP, device_scale_factor=1)
    page = await ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.goto(url)
    await page.wait_for_function("() => { const s = document.querySelector('#rp-step');"
                                 " return s && s.dataset.step === '0'; }")
    assert await page.evaluate("() => document.body.dataset.screen") == "replay"
    shown = await click_to(page, "#rp-next", 0)
    assert shown["step"] == 1
    assert await page.inner_text("#rp-action") != "发牌"
    assert counters(shown) == hands_after(record, 1)
    shown = await click_to(page, "#rp-last", shown["step"])
    assert shown["step"] == len(record["actions"])
    assert counters(shown) == hands_after(record, len(record["actions"]))
    await page.screenshot(path=str(artifacts / "replay_operator.png"), full_page=True)
    assert errors == []
