"""``paiju up`` as a user runs it (README "Running it"): a child process with a
port base and a data folder and nothing else, waited for until its banner
says it is up, stopped with SIGTERM as Ctrl-C would."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bench.failover import port_base
from tests.fixtures import stop_process

ROOT = Path(__file__).resolve().parents[1]
#: Settings that would tell paiju up or its tools where to go: unset, as on a
#: fresh machine beside a plain paiju up.
UNSET = ("PAIJU_NATS_URL", "PAIJU_DATABASE_URL", "PAIJU_TLS_DIR", "PAIJU_INSTANCE",
         "PAIJU_DEV_MODE", "PAIJU_TOKEN_SECRET", "PAIJU_LEDGER_ADDR", "PAIJU_LOBBY_ADDR",
         "PAIJU_TABLE_ADDRS", "PAIJU_GATEWAY_PORT", "PAIJU_HOST", "PAIJU_GAME_LOG_REPLICAS")
#: The last line of paiju up's banner.
BANNER_END = "Ctrl-C stops everything."


@dataclass
class Up:
    """A running ``paiju up``: its process, environment, port base, data
    folder and the file its output goes to."""

    proc: subprocess.Popen[bytes]
    env: dict[str, str]
    base: int
    data: Path
    out: Path

    @property
    def gateway_url(self) -> str:
        """The first gateway's WebSocket URL."""
        return f"ws://127.0.0.1:{self.base + 80}/ws"

    def wait_for(self, marker: str, seconds: float) -> str:
        """The output so far once it holds ``marker``; fails if paiju up exits
        or ``seconds`` pass first."""
        deadline = time.monotonic() + seconds
        while marker not in (text := self.out.read_text(errors="replace")):
            assert self.proc.poll() is None, text
            assert time.monotonic() < deadline, text
            time.sleep(0.2)
        return text


@contextlib.contextmanager
def running_up(folder: Path, *args: str) -> Iterator[Up]:
    """``paiju up ARGS`` with a free port base and ``folder/data``, once its
    banner is out; SIGTERM (then SIGKILL of its group) on exit."""
    base = port_base()
    env = {k: v for k, v in os.environ.items() if k not in UNSET}
    env |= {"PAIJU_UP_PORT_BASE": str(base), "PAIJU_DATA_DIR": str(folder / "data"),
            "PYTHONUNBUFFERED": "1"}
    out = folder / "up.out"
    with out.open("wb") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "paiju.cli", "up", *args], env=env,
                                cwd=ROOT, stdin=subprocess.DEVNULL, stdout=sink,
                                stderr=subprocess.STDOUT, start_new_session=True)
    up = Up(proc, env, base, folder / "data", out)
    try:
        up.wait_for(BANNER_END, 180)
        yield up
    finally:
        stop_process(proc, timeout=60)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, 9)
