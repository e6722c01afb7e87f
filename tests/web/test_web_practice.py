"""AI players in the browser: a player opens a practice server (练习场) of each
game, sits by clicking, and the AI pool's AIs (``paiju ai --pool``'s
:class:`~paiju.tools.ai_worker.AiPool`, over NATS as the user ``ai``) take
every other seat at once, marked "(机器人)", and press start; the player
presses start and plays the whole game by clicking to its settlement table,
whose coins and fees are all 0 (a practice server moves no coin,
docs/lobby.md). On a coin server with ``ai_fill_after_s``, a player waiting
alone gets AI players after that wait, the game's settlement moves coins
(the player's balance by its row), and the ledger's audit balances.

Screenshots (artifacts/web/): each practice game's settlement, the filled
coin room."""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from paiju.security import natsauth
from paiju.tools.ai_worker import AiPool
from tests.e2e.test_admin import admin
from tests.platform_procs import Platform
from tests.web.helpers import (
    DESKTOP,
    PHONE,
    check_settlement,
    open_page,
    play_to_settlement,
    sit_and_start,
)

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
#: Each game's practice server (the built-in rooms file) and its seats.
PRACTICE = {"doudizhu": ("doudizhu-practice", 3), "hunzhan": ("hunzhan-practice", 4),
            "daa": ("daa-practice", 5), "shengji": ("shengji-practice", 4)}
#: A 斗地主 coin server whose waiting rooms are filled with AI players after 2 s.
FILL_SERVER = "doudizhu-fill"
FILL: dict[str, object] = {"server": FILL_SERVER, "name": "斗地主 AI 补位场", "game": "doudizhu",
                           "base": 10, "min_coins": 200, "rooms": 2, "ai_fill_after_s": 2}


@pytest.fixture(scope="module")
def platform_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The built-in rooms file and the coin server with ``ai_fill_after_s``;
    the quicker deal of the browser tests."""
    rooms = yaml.safe_load((REPO / "services" / "lobby" / "rooms.yaml").read_text())
    rooms["servers"].append(FILL)
    path = tmp_path_factory.mktemp("rooms") / "rooms.yaml"
    path.write_text(yaml.safe_dump(rooms, allow_unicode=True), encoding="utf-8")
    return {"TABLE_DEAL_INTERVAL_MS": "60", "ROOMS_FILE": str(path)}


@contextlib.asynccontextmanager
async def pool_of(platform: Platform, game: str, players: int, prefix: str
                  ) -> AsyncIterator[AiPool]:
    """A running AI pool of ``players`` AIs of ``game``."""
    assert platform.nats.creds is not None
    seed = natsauth.seed_path(platform.nats.creds, "ai").read_text().strip()
    pool = AiPool(platform.gateway_url, game, players, think=(0.1, 0.3), prefix=prefix, seed=3)
    await pool.start(platform.nats.address, nkeys_seed_str=seed,
                     inbox_prefix=natsauth.inbox_prefix("ai"))
    try:
        yield pool
    finally:
        await pool.stop()


async def ai_marks(page: Any) -> list[str]:
    return list(await page.locator("#seats .ai-mark").all_inner_texts())


@pytest.mark.parametrize(("game", "viewport"), [
    ("doudizhu", DESKTOP), ("hunzhan", PHONE), ("daa", DESKTOP), ("shengji", PHONE)])
async def test_a_practice_game_against_ai_players_that_fill_at_once(
        platform: Platform, browser: Any, artifacts: Path, game: str,
        viewport: dict[str, int]) -> None:
    server, seats = PRACTICE[game]
    me = f"练习{secrets.token_hex(2)}"
    async with pool_of(platform, game, seats - 1, f"机器人{game[:2]}"):
        page = await open_page(browser, platform, viewport, me)
        await sit_and_start(page, server, f"{server}-01", 0, others=seats - 1)
        assert await ai_marks(page) == ["(机器人)"] * (seats - 1)
        done = await play_to_settlement(page, artifacts, f"practice-{game}", limit=200)
        assert done.turns >= 1
        rows = await check_settlement(page, artifacts, f"practice-{game}", me, seats)
        # 练习场: points, but no coin and no fee for anyone.
        assert [(r[3], r[4]) for r in rows] == [("0", "0")] * seats, rows
        assert not page.errors, page.errors


async def test_a_lone_player_on_a_fill_server_gets_ai_players_and_coins_move(
        platform: Platform, browser: Any, artifacts: Path) -> None:
    me = f"补位{secrets.token_hex(2)}"
    async with pool_of(platform, "doudizhu", 2, "机器人补"):
        page = await open_page(browser, platform, DESKTOP, me)
        before = int(await page.evaluate("() => window.paiju.S.me.coins"))
        await sit_and_start(page, FILL_SERVER, f"{FILL_SERVER}-01", 0, others=2)
        assert await ai_marks(page) == ["(机器人)"] * 2
        await page.screenshot(path=str(artifacts / "fill-ai.png"))
        await play_to_settlement(page, artifacts, "fill", limit=200)
        rows = await check_settlement(page, artifacts, "fill", me, 3)
        assert any(int(r[3]) != 0 for r in rows), rows
        await page.wait_for_function("(c) => window.paiju.S.me.coins === c",
                                     arg=before + int(rows[0][3]), timeout=20000)
        assert not page.errors, page.errors
    assert admin(platform, "audit")["ok"] is True
