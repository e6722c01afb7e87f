"""Helpers shared by every test folder: free ports, a real NATS server, databases,
and services run in-process or as subprocesses.

The pytest fixtures built on these live in ``tests/conftest.py`` (``nats_server``,
``nats_process``, ``postgres_url``, ``sqlite_url``); import the plain helpers from
here (``from tests.fixtures import free_port, running_service, NatsServer, until``).

Ports: a server a test starts binds port 0 where it can and the test reads the
bound port back (``NatsServer``, ``running_service``), so that runs side by side
never pick the same port; ``tests/platform_procs.py`` retries a start that lost
a port race.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from paiju.config import Config, load
from paiju.runtime.service import Context, Setup, serve
from paiju.security import identity, natsauth
from paiju.security.authz import RULES, Rule
from paiju.security.identity import Identity
from paiju.tools.up import die_with_parent, nats_server_binary
from paiju.tools.up import free_port as free_port  # re-exported: a free port on 127.0.0.1

REPO = Path(__file__).resolve().parent.parent
DEFAULT_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"

T = TypeVar("T")


async def until(condition: Callable[[], T], what: str = "the condition",
                timeout: float = 15.0, interval: float = 0.02) -> T:
    """Poll ``condition()`` every ``interval`` seconds until it returns a truthy
    value, and return that value; ``TimeoutError("timed out waiting for <what>")``
    once ``timeout`` seconds passed without one. (A deadline for a condition,
    not a timed test: give the timeout a wide margin.)"""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what} ({timeout} s)")
        await asyncio.sleep(interval)


def wait_for_port(port: int, timeout: float = 10.0, host: str = "127.0.0.1") -> None:
    """Block until ``host:port`` accepts TCP connections (``TimeoutError`` after
    ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection((host, port), timeout=0.2):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"nothing listens on {host}:{port}") from None
            time.sleep(0.05)


class NatsServer:
    """A real ``nats-server -js`` with its own store dir (it dies with the test
    process, even a killed one).

    Without ``port`` the first ``start()`` lets the server bind a free port
    itself and reads it back from its ports file (no race with other runs).
    ``start()`` / ``stop()`` / ``restart()`` keep that port and the store, so a
    test can take NATS away and bring it back (outage tests). ``url`` is
    ``nats://127.0.0.1:<port>``.

    ``auth=True`` runs it as ``paiju up`` does, with each service's NKey user
    and permissions (:mod:`paiju.security.natsauth`; the seeds in ``creds``, see
    :meth:`seed_file`; a user per name in ``gateways``), plus a test observer
    allowed everything: ``url`` then carries the observer's user and
    password, ``address`` is the bare URL (what the services get, with their seed).

    ``tls`` (a folder holding ``ca.pem``, ``nats.pem`` and ``nats-key.pem``, as
    :func:`paiju.security.identity.issue` writes them for ``nats``) makes it serve TLS
    only, as the production overlay's NATS does: its ``tls {}`` block with
    ``verify`` (a client certificate from that CA required) as given.
    """

    def __init__(self, port: int | None = None, auth: bool = False,
                 creds: Path | None = None, tls: Path | None = None,
                 verify: bool = True, gateways: tuple[str, ...] = ("gateway",)) -> None:
        self.port = port or 0
        self.store = Path(tempfile.mkdtemp(prefix="paiju-nats-"))
        self.proc: subprocess.Popen[bytes] | None = None
        self.creds: Path | None = None
        self.observer = ""
        self.tls, self.verify = tls, verify
        if auth or creds:  # ``creds``: a folder whose seeds to use (kept; auth.conf remade)
            self.creds = creds or self.store / "creds"
            self.observer = "observer:" + secrets.token_hex(16)
            user, password = self.observer.split(":")
            natsauth.write_credentials(self.creds, gateways=gateways, extra_users=[
                f'{{user: "{user}", password: "{password}"}}'])

    @property
    def address(self) -> str:
        """The client URL of this server without credentials (fixes a free
        port before the first ``start()``, as :attr:`url` does)."""
        if not self.port:
            self.port = free_port()
        return f"nats://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        """The client URL of this server (the observer's, with ``auth``). Asked
        before the first ``start()`` (a client that waits for the server to
        come up), it fixes a free port for the server then."""
        if not self.port:
            self.port = free_port()
        who = f"{self.observer}@" if self.observer else ""
        return f"nats://{who}127.0.0.1:{self.port}"

    def seed_file(self, service: str) -> Path:
        """The seed file of ``service``'s NATS user (``auth`` servers only)."""
        assert self.creds is not None, "NatsServer(auth=True) has credentials"
        return natsauth.seed_path(self.creds, service)

    def start(self, timeout: float = 10.0) -> None:
        """Start the server (no-op if running); returns once it accepts
        connections. ``RuntimeError`` if it exited (e.g. its port was taken)."""
        if self.proc is not None and self.proc.poll() is None:
            return
        ports_dir = self.store / "ports"
        shutil.rmtree(ports_dir, ignore_errors=True)
        ports_dir.mkdir()
        self.proc = subprocess.Popen(
            [nats_server_binary(), "-js", "-a", "127.0.0.1", "-p", str(self.port or -1),
             "-sd", str(self.store / "data"), "--ports_file_dir", str(ports_dir),
             *self._config()],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
            preexec_fn=die_with_parent(os.getpid()),
        )
        # The ports file is written once the server listens (created first,
        # then filled: read until it parses).
        deadline = time.monotonic() + timeout
        url = ""
        while not url:
            for path in ports_dir.glob("*.ports"):
                with contextlib.suppress(ValueError, KeyError, IndexError):
                    url = json.loads(path.read_text())["nats"][0]
            if url:
                break
            if self.proc.poll() is not None:
                raise RuntimeError(f"nats-server exited with {self.proc.returncode} "
                                   f"(port {self.port or 'any'})")
            if time.monotonic() > deadline:
                raise TimeoutError("nats-server did not start listening")
            time.sleep(0.02)
        self.port = int(url.rsplit(":", 1)[1])
        wait_for_port(self.port)

    def _config(self) -> list[str]:
        """``-c FILE`` where the server has users or TLS: the users' block
        (``auth.conf``) and the ``tls {}`` block (in the credentials folder,
        where NATS resolves the ``include``), or nothing."""
        if self.tls is None:
            return ["-c", str(self.creds / natsauth.AUTH_CONF)] if self.creds else []
        folder = self.creds or self.store
        lines = [f'include "{natsauth.AUTH_CONF}"'] if self.creds else []
        lines += ["tls {", f"  cert_file: {json.dumps(str(self.tls / 'nats.pem'))}",
                  f"  key_file: {json.dumps(str(self.tls / 'nats-key.pem'))}",
                  f"  ca_file: {json.dumps(str(self.tls / 'ca.pem'))}",
                  f"  verify: {'true' if self.verify else 'false'}", "  timeout: 2", "}", ""]
        conf = folder / "tls-server.conf"
        conf.write_text("\n".join(lines), encoding="utf-8")
        return ["-c", str(conf)]

    def stop(self) -> None:
        """Kill the server and wait for it to be gone (no-op if not running)."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)
        self.proc = None

    def restart(self) -> None:
        """Stop, then start again on the same port with the same store."""
        self.stop()
        self.start()

    def close(self) -> None:
        """Stop the server and delete its store."""
        self.stop()
        shutil.rmtree(self.store, ignore_errors=True)


_TLS_DIR: list[Path] = []


def tls_dir() -> Path:
    """A CA and a certificate for every identity (:data:`paiju.security.identity.IDENTITIES`),
    made once per test process in a temporary folder (removed at exit); the
    certificates also name 127.0.0.1 and localhost, so a test may reach a
    service by address (:func:`client_channel` with no ``peer``)."""
    if not _TLS_DIR:
        import atexit

        path = Path(tempfile.mkdtemp(prefix="paiju-tls-"))
        atexit.register(shutil.rmtree, path, True)
        identity.make_ca(path)
        for name in identity.IDENTITIES:
            identity.issue(path, name, hosts=("127.0.0.1", "localhost"))
        _TLS_DIR.append(path)
    return _TLS_DIR[0]


def as_identity(name: str) -> Identity:
    """The test certificate of identity ``name`` (``gateway``, ``operator``…)."""
    return identity.load(tls_dir(), name)


def client_channel(addr: str, as_: str = "operator", peer: str | None = None
                   ) -> grpc.aio.Channel:
    """A mutual-TLS channel to ``addr`` acting as identity ``as_`` (the test
    CA's certificate), checking the server is ``peer`` (default: by address)."""
    return identity.secure_channel(addr, as_identity(as_), peer)


#: Which identity :func:`service_channel` calls a method as, first that the
#: method's rule names: the services' own callers before the operator.
CALLER_PREFERENCE = ("gateway", "table", "lobby", "operator", "ledger")


def caller_for(method: str) -> str:
    """The identity a test stands in for when it calls ``method``
    (``/package.Service/Method``): the first of :data:`CALLER_PREFERENCE`
    that paiju's authorisation table allows outside development mode.
    Raises ``KeyError`` for a method the table does not name."""
    rule = RULES[method]
    return next(c for c in CALLER_PREFERENCE if c in rule.callers)


class _AsCallers:
    """Channels to one address, one per identity, opened on first use."""

    def __init__(self, addr: str, make: Any) -> None:
        self.addr = addr
        self._make = make
        self.channels: dict[str, Any] = {}

    def _for(self, method: str | bytes) -> Any:
        name = caller_for(method.decode() if isinstance(method, bytes) else method)
        if name not in self.channels:
            self.channels[name] = self._make(self.addr, as_identity(name), None)
        return self.channels[name]

    def unary_unary(self, method: str, *args: Any, **kwargs: Any) -> Any:
        return self._for(method).unary_unary(method, *args, **kwargs)

    def unary_stream(self, method: str, *args: Any, **kwargs: Any) -> Any:
        return self._for(method).unary_stream(method, *args, **kwargs)

    def stream_unary(self, method: str, *args: Any, **kwargs: Any) -> Any:
        return self._for(method).stream_unary(method, *args, **kwargs)

    def stream_stream(self, method: str, *args: Any, **kwargs: Any) -> Any:
        return self._for(method).stream_stream(method, *args, **kwargs)


class ServiceChannel(_AsCallers):
    """An asyncio channel (for generated stubs) on which each call is made
    over mutual TLS as the identity that would make it in paiju
    (:func:`caller_for`): a test standing in for the gateway when it sits a
    player, for the table when it settles. Closes like a channel."""

    def __init__(self, addr: str) -> None:
        super().__init__(addr, identity.secure_channel)

    async def close(self, grace: float | None = None) -> None:
        """Close every channel opened."""
        for ch in self.channels.values():
            await ch.close(grace)
        self.channels.clear()

    async def __aenter__(self) -> ServiceChannel:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class BlockingServiceChannel(_AsCallers):
    """:class:`ServiceChannel` for synchronous stubs."""

    def __init__(self, addr: str) -> None:
        super().__init__(addr, identity.blocking_channel)

    def close(self) -> None:
        """Close every channel opened."""
        for ch in self.channels.values():
            ch.close()
        self.channels.clear()

    def __enter__(self) -> BlockingServiceChannel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def service_channel(addr: str) -> Any:
    """A :class:`ServiceChannel` to the paiju service at ``addr`` (typed as a
    channel for the stubs)."""
    return ServiceChannel(addr)


def blocking_service_channel(addr: str) -> Any:
    """A :class:`BlockingServiceChannel` to the paiju service at ``addr``."""
    return BlockingServiceChannel(addr)


def postgres_reachable(url: str, timeout: float = 3.0) -> str | None:
    """``None`` if a PostgreSQL at ``url`` accepts a connection and ``SELECT 1``,
    otherwise the reason it does not (for a skip message)."""
    import asyncpg  # type: ignore[import-untyped]
    from sqlalchemy.engine import make_url

    u = make_url(url)
    host, port = u.host or "127.0.0.1", u.port or 5432
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as e:
        return f"PostgreSQL at {host}:{port} unreachable ({e})"

    async def probe() -> None:
        conn = await asyncpg.connect(
            user=u.username, password=u.password, host=host, port=port,
            database=u.database, timeout=timeout)
        try:
            await conn.fetchval("SELECT 1")
        finally:
            await conn.close()

    try:
        asyncio.run(probe())
    except Exception as e:
        return f"PostgreSQL at {host}:{port} refused ({type(e).__name__}: {e})"
    return None


def postgres_test_url() -> str:
    """``PAIJU_TEST_POSTGRES_URL`` or the default local test database."""
    return os.environ.get("PAIJU_TEST_POSTGRES_URL", DEFAULT_POSTGRES_URL)


def service_config(service: str, **overrides: Any) -> Config:
    """``load(service)`` with gRPC port 0 (the server binds a free one and
    :func:`~paiju.runtime.service.serve` reports it in ``ctx.config.grpc_port``), health
    port 0 (likewise), no metrics port, the test certificates (:func:`tls_dir`),
    and ``overrides`` (any :class:`~paiju.config.Config` field, e.g.
    ``nats_url=...``, ``database_url=...``)."""
    config = load(service).model_copy(update={
        "grpc_port": 0, "metrics_port": 0, "health_port": 0, "tls_dir": tls_dir(),
        "drain_seconds": 2.0, **overrides})
    if "instance" not in overrides:  # serve() names it after the bound port
        config = config.model_copy(update={"instance": f"{service}-{config.grpc_port}"})
    return config


@contextlib.asynccontextmanager
async def running_service(
    name: str, setup: Setup, config_overrides: Mapping[str, Any] | None = None,
    contexts: list[Context] | None = None, rules: Mapping[str, Rule] = RULES,
) -> AsyncIterator[str]:
    """Run service ``name`` in-process (``paiju.runtime.service.serve``) on a port it binds;
    yields its address ``127.0.0.1:<port>``, stops it gracefully on exit.

    ``config_overrides`` replaces Config fields (``nats_url``, ``database_url``,
    ``ledger_addr``…). Pass a list as ``contexts`` to get the service's
    :class:`~paiju.runtime.service.Context` appended (its health, config, tasks).
    ``rules`` is the authorisation table (default paiju's). Raises whatever
    ``setup`` raised if the service could not start.
    """
    config = service_config(name, **dict(config_overrides or {}))
    stop = asyncio.Event()
    started: asyncio.Future[Context] = asyncio.get_running_loop().create_future()

    def on_started(ctx: Context) -> None:
        if not started.done():
            started.set_result(ctx)

    def on_done(task: asyncio.Task[None]) -> None:
        if not started.done():
            error = None if task.cancelled() else task.exception()
            started.set_exception(error or RuntimeError(f"{name} stopped before serving"))

    task = asyncio.create_task(serve(config, setup, stop=stop, on_started=on_started,
                                     signals=False, rules=rules))
    task.add_done_callback(on_done)
    ctx = await started
    if contexts is not None:
        contexts.append(ctx)
    try:
        yield f"127.0.0.1:{ctx.config.grpc_port}"
    finally:
        stop.set()
        await task


async def health_status(addr: str, service: str = "", timeout: float = 2.0,
                        plain: bool = False) -> str:
    """The gRPC health status of ``service`` at ``addr`` as a name (``SERVING``,
    ``NOT_SERVING``, ``SERVICE_UNKNOWN``), or ``UNAVAILABLE`` if nothing answers.
    Asked over mutual TLS as the operator (a service's main port), or without
    TLS if ``plain`` (its health port)."""
    async with (grpc.aio.insecure_channel(addr) if plain else client_channel(addr)) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            reply = await stub.Check(health_pb2.HealthCheckRequest(service=service),
                                     timeout=timeout)
        except grpc.aio.AioRpcError as e:
            if e.code() == grpc.StatusCode.NOT_FOUND:
                return "SERVICE_UNKNOWN"
            return "UNAVAILABLE"
        return str(health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status))


async def wait_health(addr: str, want: str = "SERVING", timeout: float = 30.0,
                      service: str = "", proc: subprocess.Popen[Any] | None = None) -> None:
    """Poll the health of ``addr`` until it is ``want``; ``TimeoutError`` with the
    last status seen otherwise, ``RuntimeError`` as soon as ``proc`` (the
    service's process, if given) has exited. (A deadline for a condition, not a
    timed test.)"""
    deadline = time.monotonic() + timeout
    status = ""
    while time.monotonic() < deadline:
        status = await health_status(addr, service)
        if status == want:
            return
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the process of {addr} exited with {proc.returncode}")
        await asyncio.sleep(0.1)
    raise TimeoutError(f"{addr} health {status!r}, wanted {want!r}")


def service_env(**paiju: str) -> dict[str, str]:
    """The current environment without any ``PAIJU_*`` variable, plus ``paiju``
    given as ``NAME=value`` (``service_env(NATS_URL=...)`` sets ``PAIJU_NATS_URL``).
    Unless given, ``PAIJU_TLS_DIR`` is the test certificates (:func:`tls_dir`;
    ``TLS_DIR=""`` leaves it unset) and ``PAIJU_HEALTH_PORT`` 0 (each process
    binds a free one, so processes started with one environment never clash)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAIJU_")}
    paiju = {"TLS_DIR": str(tls_dir()), "HEALTH_PORT": "0", **paiju}
    env.update({f"PAIJU_{k}": v for k, v in paiju.items() if v != "" or k != "TLS_DIR"})
    env["PYTHONUNBUFFERED"] = "1"
    return env


def start_service_process(name: str | Sequence[str], env: Mapping[str, str],
                          log: Path | None = None) -> subprocess.Popen[bytes]:
    """Start ``paiju <name>`` (``python -m paiju.cli <name>``; ``name`` may be
    the whole argument list) as a subprocess in its own process group, output
    to ``log`` (or discarded). It gets SIGTERM if the test process dies."""
    out = log.open("wb") if log is not None else subprocess.DEVNULL
    args = [name] if isinstance(name, str) else list(name)
    try:
        return subprocess.Popen([sys.executable, "-m", "paiju.cli", *args], env=dict(env),
                                cwd=REPO, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True,
                                preexec_fn=die_with_parent(os.getpid()))
    finally:
        if log is not None and not isinstance(out, int):
            out.close()


def stop_process(proc: subprocess.Popen[Any], timeout: float = 15.0) -> int:
    """SIGTERM ``proc``, wait up to ``timeout`` seconds, then SIGKILL its group;
    returns its exit code."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            return proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
    return proc.wait(timeout=timeout)


def sigstop(pid: int, timeout: float = 10.0) -> None:
    """SIGSTOP ``pid`` and return once it is stopped (state ``T`` in
    /proc/<pid>/stat): a signal takes effect when the process next runs, and
    until then it still answers."""
    os.kill(pid, signal.SIGSTOP)
    deadline = time.monotonic() + timeout
    while Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "T":
        if time.monotonic() > deadline:
            raise TimeoutError(f"process {pid} did not stop")
        time.sleep(0.01)


def samples(port: int, name: str) -> dict[str, float]:
    """Every sample of metric ``name`` on a metrics port, by its labels' text."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        text = r.read().decode()
    return {line.split(" ")[0][len(name):]: float(line.split(" ")[1])
            for line in text.splitlines() if line.startswith(name + "{")}
