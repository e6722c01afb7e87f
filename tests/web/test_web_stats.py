"""A player's card (资料) and the rankings' tabs (本周 / 本赛季 / 总榜) in real
headless Chromium, against the platform as processes.

Three bots play one doudizhu game to its settlement and stay seated. Then
one of them signs in in the browser and is back at that table: a click on
another's name at the table opens that player's card, a click on one's own
name in the top bar one's own; the rankings page's three tabs each
list the three players, and a click on a name there opens that card. Every
figure is checked against the ledger's journal, read straight from the
ledger's database file (its ``ledger_seats`` and ``ledger_transactions``
rows), not through the code under test. The same cards and tabs at 390 px,
with nothing wider than the screen.

Screenshots (artifacts/web/): card_table.png, card_mine.png, rankings_all.png,
card_phone.png, rankings_season_phone.png.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.platform_procs import Platform, after_one_game
from tests.web.helpers import DESKTOP, PHONE, no_horizontal_overflow
from tests.web.test_web_records import sign_in

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

SERVER = "doudizhu-10"

#: The card as the page shows it: whose, and each game's figures by name.
CARD_JS = """() => {
  const card = document.querySelector('#player-card');
  if (!card) return null;
  return {
    player: card.dataset.player, name: card.querySelector('#card-name').innerText.trim(),
    games: Object.fromEntries([...card.querySelectorAll('.card-game')].map((g) => [
      g.dataset.game, Object.fromEntries([...g.querySelectorAll('[data-stat]')].map(
        (b) => [b.dataset.stat, b.innerText.trim()]))])),
  };
}"""

#: The rankings rows as shown: name, coins, games.
RANKS_JS = """() => [...document.querySelectorAll('table.rk tbody tr')].map((tr) => {
  const td = [...tr.querySelectorAll('td')];
  return [tr.dataset.player, td[1].querySelector('.rk-name').innerText.trim(),
    Number(td[2].innerText), Number(td[3].innerText)];
})"""


@pytest.fixture(scope="module")
def platform(chromium: str) -> Iterator[tuple[Platform, list[str]]]:
    """The platform, after three bots played one doudizhu game (their names)."""
    with after_one_game("st", f"{SERVER}-03") as played:
        yield played


def journal(p: Platform) -> list[dict[str, Any]]:
    """Every seat of every settlement in the ledger's database file: player
    id, name, points, coins after the fee, reason, server, time played (ms)."""
    with sqlite3.connect(p.data / "ledger.db") as conn:
        rows = conn.execute(
            "SELECT s.account, a.name, s.points, s.coins, t.reason, t.server, t.played_ms"
            " FROM ledger_seats s JOIN ledger_transactions t ON t.id = s.transaction_id"
            " JOIN ledger_accounts a ON a.account = s.account").fetchall()
    return [{"player": r[0].removeprefix("player:"), "name": r[1], "points": r[2],
             "coins": r[3], "reason": r[4], "server": r[5], "played_ms": r[6]} for r in rows]


def signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def duration(ms: int) -> str:
    """A time played as the card writes it: 45 秒, 12 分, 2 小时 5 分."""
    s = ms // 1000
    if s < 60:
        return f"{s} 秒"
    m = s // 60
    return f"{m} 分" if m < 60 else f"{m // 60} 小时 {m % 60} 分"


def expected_card(p: Platform, name: str) -> dict[str, Any]:
    """The card the ledger's seats give ``name``: one doudizhu game."""
    seats = [s for s in journal(p) if s["name"] == name]
    assert len(seats) == 1, seats
    s = seats[0]
    assert s["played_ms"] > 0  # the table gave the ledger the time played
    won, lost = int(s["points"] > 0), int(s["points"] < 0)
    return {"player": s["player"], "name": name, "games": {"doudizhu": {
        "games": "1", "wins": str(won), "losses": str(lost), "draws": str(1 - won - lost),
        "win_rate": "100%" if won else "0%", "best": signed(s["coins"]),
        "worst": signed(s["coins"]),
        "escapes": str(int(s["reason"] == "escape" and s["points"] < 0)),
        "coins": signed(s["coins"]), "played": duration(s["played_ms"])}}}


async def close_result(page: Any) -> None:
    """Close the last game's settlement where the page shows it on coming back."""
    if await page.locator("#modal [data-act=closeModal]").count():
        await page.click("#modal [data-act=closeModal]")
        await page.wait_for_function("() => !window.paiju.S.modal")


async def card_of(page: Any, click: str, player: str) -> dict[str, Any]:
    """Click ``click`` and read the card of ``player`` once it is open."""
    await page.click(click)
    await page.wait_for_selector(f'#player-card[data-player="{player}"]')
    shown: dict[str, Any] = await page.evaluate(CARD_JS)
    return shown


async def close_card(page: Any) -> None:
    await page.click("#modal [data-act=closeModal]")
    await page.wait_for_selector("#player-card", state="detached")


async def ranked_in(page: Any, window: str) -> list[list[Any]]:
    """Click the ``window`` tab and read the rows once it is the chosen one."""
    await page.click(f'.rk-win[data-window="{window}"]')
    await page.wait_for_selector(f'.rk-win.on[data-window="{window}"]')
    rows: list[list[Any]] = await page.evaluate(RANKS_JS)
    return rows


async def test_cards_and_rankings_tabs(browser: Any, platform: tuple[Platform, list[str]],
                                       artifacts: Path) -> None:
    p, names = platform
    ids = {s["name"]: s["player"] for s in journal(p)}
    # The three stay seated after their game: signing in takes names[0] back to its table.
    page = await sign_in(browser, p, DESKTOP, names[0], "#btn-my-card")
    await page.wait_for_selector(f'#seats .pbox [data-player="{ids[names[1]]}"]')
    await close_result(page)
    shown = await card_of(page, f'#seats .pbox [data-player="{ids[names[1]]}"]', ids[names[1]])
    assert shown == expected_card(p, names[1])
    await page.screenshot(path=str(artifacts / "card_table.png"), full_page=True)
    await close_card(page)
    shown = await card_of(page, "#btn-my-card", ids[names[0]])
    assert shown == expected_card(p, names[0])
    await page.screenshot(path=str(artifacts / "card_mine.png"), full_page=True)
    await close_card(page)

    await page.click("#btn-rankings")
    await page.wait_for_selector("#rk-server")
    await page.select_option("#rk-server", SERVER)
    await page.wait_for_selector(f'#rk-title[data-server="{SERVER}"]')
    won = sorted(((s["coins"], s["player"]) for s in journal(p) if s["server"] == SERVER),
                 reverse=True)
    name_of = {v: k for k, v in ids.items()}
    for window in ("season", "all", "week"):
        rows = await ranked_in(page, window)
        assert sorted(rows, key=lambda r: (-r[2], r[0])) == rows
        assert sorted([r[2], r[0]] for r in rows) == sorted([c, pl] for c, pl in won), window
        assert [(r[1], r[3]) for r in rows] == [(name_of[r[0]], 1) for r in rows]
    await page.click('.rk-win[data-window="all"]')
    await page.wait_for_selector('.rk-win.on[data-window="all"]')
    await page.screenshot(path=str(artifacts / "rankings_all.png"), full_page=True)
    shown = await card_of(page, f'table.rk [data-rec=card][data-player="{ids[names[2]]}"]',
                          ids[names[2]])
    assert shown == expected_card(p, names[2])
    assert page.errors == []


async def test_card_and_tabs_at_390px(browser: Any, platform: tuple[Platform, list[str]],
                                      artifacts: Path) -> None:
    p, names = platform
    ids = {s["name"]: s["player"] for s in journal(p)}
    page = await sign_in(browser, p, PHONE, names[2], "#btn-my-card")
    await close_result(page)
    shown = await card_of(page, "#btn-my-card", ids[names[2]])
    assert shown == expected_card(p, names[2])
    await no_horizontal_overflow(page)
    await page.screenshot(path=str(artifacts / "card_phone.png"), full_page=True)
    await close_card(page)
    await page.click("#btn-rankings")
    await page.wait_for_selector("#rk-server")
    await page.select_option("#rk-server", SERVER)
    await page.wait_for_selector(f'#rk-title[data-server="{SERVER}"]')
    rows = await ranked_in(page, "season")
    assert sorted(r[0] for r in rows) == sorted(ids.values())
    await no_horizontal_overflow(page)
    await page.screenshot(path=str(artifacts / "rankings_season_phone.png"), full_page=True)
    assert page.errors == []
