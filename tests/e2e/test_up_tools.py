"""``paiju replay-link`` and ``paiju admin`` beside a real ``paiju up`` run
with ``PAIJU_UP_PORT_BASE`` (README "Replaying a game record", "The
operator's console"): both find the platform from the same settings, with
only what README says to set (``PAIJU_DEV_MODE=1`` for the link, as
``paiju up`` runs in development mode)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from paiju.tools.bots import BotError, Client
from tests.paiju_up import ROOT, running_up

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]


def paiju(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "paiju.cli", *args], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)


async def replay_refusal(url: str, game_id: str, link: str) -> str:
    """The gateway's refusal of ``replay`` with ``link``, not signed in."""
    c = Client(url, lambda ev: None)
    await c.connect()
    try:
        with pytest.raises(BotError) as e:
            await c.call("replay", game_id=game_id, link=link)
        return e.value.code
    finally:
        await c.close()


def test_replay_link_and_admin_find_paiju_up_under_a_port_base(tmp_path: Path) -> None:
    with running_up(tmp_path) as up:
        env, base = up.env, up.base
        # The link: made as README says, it points at this paiju up's web client,
        # and its gateway takes it (the game is unknown; the link is good).
        made = paiju(env | {"PAIJU_DEV_MODE": "1"}, "replay-link", "no-such-game")
        assert made.returncode == 0, made.stderr
        url = made.stdout.strip()
        prefix = f"http://127.0.0.1:{base + 80}/#replay=no-such-game&link="
        assert url.startswith(prefix), url
        code = asyncio.run(replay_refusal(f"ws://127.0.0.1:{base + 80}/ws", "no-such-game",
                                          url.removeprefix(prefix)))
        assert code == "no_record"
        # Outside development mode the development key signs nothing; the refusal says
        # what to set.
        refused = paiju(env, "replay-link", "no-such-game")
        assert refused.returncode == 2 and "PAIJU_DEV_MODE=1" in refused.stderr
        # The console: the ledger, lobby and table of this paiju up, over mutual TLS.
        games = paiju(env, "admin", "games")
        assert games.returncode == 0, games.stderr
        instances = json.loads(games.stdout)["instances"]
        assert [i["address"] for i in instances] == [f"127.0.0.1:{base + 2}"]
        assert "error" not in instances[0], instances
        audit = paiju(env, "admin", "audit")
        assert audit.returncode == 0, audit.stderr
        found = paiju(env, "admin", "find", "nobody-at-all")
        assert found.returncode == 0, found.stderr
