"""``paiju replay-link`` and ``paiju admin`` beside a real ``paiju up`` run
with ``PAIJU_UP_PORT_BASE`` (README "Replaying a game record", "The
operator's console"): both find the platform from the same settings, with
only what README says to set (``PAIJU_DEV_MODE=1`` for the link, as
``paiju up`` runs in development mode)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.failover import port_base
from paiju.tools.bots import BotError, Client

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
#: Settings that would tell the tools where to go: unset, as beside a plain paiju up.
UNSET = ("PAIJU_NATS_URL", "PAIJU_DATABASE_URL", "PAIJU_TLS_DIR", "PAIJU_INSTANCE",
         "PAIJU_DEV_MODE", "PAIJU_TOKEN_SECRET", "PAIJU_LEDGER_ADDR", "PAIJU_LOBBY_ADDR",
         "PAIJU_TABLE_ADDRS", "PAIJU_GATEWAY_PORT", "PAIJU_HOST")


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
    base = port_base()
    env = {k: v for k, v in os.environ.items() if k not in UNSET}
    env |= {"PAIJU_UP_PORT_BASE": str(base), "PAIJU_DATA_DIR": str(tmp_path / "data"),
            "PYTHONUNBUFFERED": "1"}
    out = tmp_path / "up.out"
    with out.open("wb") as sink:
        up = subprocess.Popen([sys.executable, "-m", "paiju.cli", "up"], env=env, cwd=ROOT,
                              stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
                              start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        while "Ctrl-C stops everything." not in out.read_text(errors="replace"):
            assert up.poll() is None, out.read_text(errors="replace")
            assert time.monotonic() < deadline, out.read_text(errors="replace")
            time.sleep(0.2)
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
    finally:
        up.send_signal(signal.SIGTERM)
        try:
            up.wait(60)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(up.pid, signal.SIGKILL)
            up.wait()
