"""deploy/: every service starts with the configuration its rendered pod gets.

For each overlay the test renders the manifests, takes each paiju workload's
environment (the image's ENV, the ConfigMap ``paiju-config``, the Secret
``paiju-secrets`` — in production the one docs/operations.md tells the
operator to make — and the downward API) and its mounted ConfigMap and Secret
files (each service's NATS seed; NATS runs with the users those seeds are
for, as the overlay's ConfigMap ``nats-auth`` or the operator configures it), maps
what only exists in a cluster to local things (Service and pod host names to
this test's processes and its real NATS, the in-cluster PostgreSQL to a fresh
database, mount paths to temporary folders, ports to free ones after checking
that the probes and Service ports point at the ports the service binds),
starts lobby, table, ledger and gateway as real processes with it and waits
for gRPC health SERVING. A manifest a pod could not start with fails here
(the empty rooms file of old: the lobby refused it). Then the AI players' pod
(Deployment ai) starts with its own: asked on NATS as the lobby asks for a
practice room's seat, an AI answers and signs in at the gateway with an AI
token, which opens its account.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import re
import secrets
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
import yaml
from grpc_health.v1 import health_pb2, health_pb2_grpc
from sqlalchemy.engine import make_url

from paiju.config import GRPC_PORTS, METRICS_PORTS
from paiju.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from paiju.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from paiju.security import natsauth, nkey_seeds
from tests.conftest import REPO
from tests.deploy.databases import fresh_postgres_database
from tests.deploy.manifests import (
    OVERLAYS,
    PAIJU_SERVICES,
    Doc,
    config_map_data,
    container_env,
    container_files,
    find,
    render,
    secret_mounts,
    workloads,
)
from tests.fixtures import (
    NatsServer,
    free_port,
    postgres_reachable,
    postgres_test_url,
    service_env,
    start_service_process,
    stop_process,
)

#: What a service may take to come up on a loaded machine (a deadline, not a timing).
START_DEADLINE = 120.0
#: Whether the services take mutual TLS (paiju/security/identity.py): then
#: each pod gets the certificate its Secret volume mounts, made here as
#: cert-manager would, and health is asked on the plain health port.
MUTUAL_TLS = importlib.util.find_spec("paiju.security.identity") is not None


def cert_manager_secrets(docs: list[Doc], ca_dir: Path) -> dict[str, dict[str, bytes]]:
    """What cert-manager puts in the Secret of each rendered (non-CA)
    Certificate, from a CA made in ``ca_dir``: ``tls.crt`` and ``tls.key``
    for the Certificate's common name, ``ca.crt``. Empty before the services
    take mutual TLS."""
    if not MUTUAL_TLS:
        return {}
    identity: Any = importlib.import_module("paiju.security.identity")
    if not (ca_dir / "ca.pem").exists():  # the NATS server's CA (nats_for) is the same
        identity.make_ca(ca_dir)
    made: dict[str, dict[str, bytes]] = {}
    for cert in (d for d in docs if d["kind"] == "Certificate"
                 and d["apiVersion"] == "cert-manager.io/v1" and not d["spec"].get("isCA")):
        name = cert["spec"]["commonName"]
        identity.issue(ca_dir, name, hosts=cert["spec"]["dnsNames"][1:])
        made[cert["spec"]["secretName"]] = {
            "ca.crt": (ca_dir / "ca.pem").read_bytes(),
            "tls.crt": (ca_dir / f"{name}.pem").read_bytes(),
            "tls.key": (ca_dir / f"{name}-key.pem").read_bytes()}
    return made


async def wait_serving(addr: str, proc: subprocess.Popen[bytes], timeout: float) -> None:
    """Poll the plain gRPC health service at ``addr`` until SERVING;
    ``RuntimeError`` once ``proc`` exited, ``TimeoutError`` at the deadline."""
    deadline = time.monotonic() + timeout
    status = "UNAVAILABLE"
    async with grpc.aio.insecure_channel(addr) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline:
            try:
                reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=2)
                status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
            except grpc.aio.AioRpcError as e:
                status = e.code().name
            if status == "SERVING":
                return
            if proc.poll() is not None:
                raise RuntimeError(f"the process of {addr} exited with {proc.returncode}")
            await asyncio.sleep(0.1)
    raise TimeoutError(f"{addr} health {status!r}, wanted 'SERVING'")


def operator_secrets(nats_creds: Path | None = None) -> dict[str, dict[str, str]]:
    """The Secrets that docs/operations.md tells a production operator to
    create: ``paiju-secrets`` with the keys it names (``--from-literal=KEY=``)
    and values of our own (the database URL is replaced by the local one
    anyway), ``paiju-ai`` (the AI players' token key), and
    ``paiju-nats-<service>`` (and ``paiju-nats-ai``) with the key it names
    (``--from-file=KEY=``) holding the seeds of ``paiju nats-config`` in
    ``nats_creds`` (without it ``paiju-secrets`` alone)."""
    doc = (REPO / "docs" / "operations.md").read_text()
    keys = re.findall(r"--from-literal=([a-z0-9-]+)=", doc)
    assert keys, "docs/operations.md shows how to create paiju-secrets"
    values = {k: secrets.token_hex(32) for k in keys}
    values["database-url"] = "postgresql://paiju:secret@db.example:5432/paiju"
    out = {"paiju-secrets": values}
    ai = re.search(r"secret generic paiju-ai \\\n\s*--from-literal=([a-z-]+)=", doc)
    assert ai, "docs/operations.md shows how to create paiju-ai"
    out["paiju-ai"] = {ai.group(1): secrets.token_hex(32)}
    if nats_creds is None:
        return out
    made = re.search(r"paiju-nats-ai --from-file=([a-z]+)=\S+/ai\.nk", doc)
    assert made, "docs/operations.md shows how to create paiju-nats-ai"
    out["paiju-nats-ai"] = {made.group(1): natsauth.seed_path(nats_creds, "ai").read_text()}
    for service in natsauth.SERVICES[:3]:
        made = re.search(rf"paiju-nats-{service} --from-file=([a-z]+)=\S+/{service}\.nk", doc)
        assert made, f"docs/operations.md shows how to create paiju-nats-{service}"
        out[f"paiju-nats-{service}"] = {
            made.group(1): natsauth.seed_path(nats_creds, service).read_text()}
    # the gateway's: a key per pod, gateway-<k> (``--gateways 20``)
    made = re.search(r"paiju-nats-gateway \\\n.*seq 0 (\d+).*--from-file=gateway-\$k="
                     r"\S+/gateway-\$k\.nk", doc)
    assert made, "docs/operations.md shows how to create paiju-nats-gateway"
    out["paiju-nats-gateway"] = {
        user: natsauth.seed_path(nats_creds, user).read_text()
        for user in natsauth.gateway_users(int(made.group(1)) + 1)}
    return out


@pytest.fixture
def nats_for(overlay: str, tmp_path: Path) -> Iterator[NatsServer]:
    """A NATS server with the users the overlay's pods connect as: the dev
    overlay's own seeds (whose rendered ConfigMap nats-auth must be what
    ``paiju nats-config`` makes of them), or in production seeds made as the
    operator makes them. Where the overlay's NATS serves TLS (its nats.conf
    has a ``tls {}`` block: production), so does this one, with a certificate
    of the rendered Certificate's names (and 127.0.0.1, where the pods reach
    it here) from the CA the services' certificates come from (``tmp_path/ca``,
    :func:`cert_manager_secrets`), verifying clients as the overlay says."""
    creds = tmp_path / "nats-credentials"
    if overlay == "dev":
        committed = REPO / "deploy" / "overlays" / "dev" / "nats-credentials"
        shutil.copytree(committed, creds)
        keys = {u: nkey_seeds.public_key(nkey_seeds.read_seed(natsauth.seed_path(creds, u)))
                for u in (*natsauth.NAMED_USERS, *natsauth.gateway_users())}
        docs = render(overlay)
        volumes = find(docs, "StatefulSet", "nats")["spec"]["template"]["spec"]["volumes"]
        mounted = [src["configMap"]["name"] for v in volumes
                   for src in v.get("projected", {}).get("sources", [])]
        auth = next(n for n in mounted if n.startswith("nats-auth"))  # its name has a hash
        rendered = config_map_data(docs, auth)["auth.conf"]
        assert rendered == natsauth.authorization(keys), \
            "remake deploy/overlays/dev/nats-credentials with paiju nats-config"
    docs = render(overlay)
    conf = config_map_data(docs, "nats-config")["nats.conf"]
    tls_block = re.search(r"(?m)^tls \{(.*?)^\}", conf, re.S)
    tls = None
    if tls_block is not None:
        identity: Any = importlib.import_module("paiju.security.identity")
        ca_dir, tls = tmp_path / "ca", tmp_path / "nats-tls"
        identity.make_ca(ca_dir)
        names = next(d["spec"]["dnsNames"] for d in docs if d["kind"] == "Certificate"
                     and d["spec"].get("commonName") == "nats")
        identity.issue(ca_dir, "nats", hosts=[*names[1:], "127.0.0.1"])
        tls.mkdir()
        for name in ("ca.pem", "nats.pem", "nats-key.pem"):
            shutil.copy(ca_dir / name, tls / name)
    server = NatsServer(creds=creds, tls=tls, gateways=natsauth.gateway_users(20),
                        verify=tls_block is not None and "verify: true" in tls_block.group(1))
    server.start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def local_database(tmp_path: Path) -> Iterator[str]:
    """A fresh database for the services of one overlay: a new database on the
    test PostgreSQL when it answers, else a SQLite file."""
    url = postgres_test_url()
    if postgres_reachable(url) is None:
        with fresh_postgres_database(url, "paiju_ops_deploy") as fresh:
            yield fresh
    else:
        yield f"sqlite:///{tmp_path / 'paiju.runtime.db'}"


@dataclass
class Pod:
    """The first pod of one paiju workload, as this test runs it."""

    service: str
    workload: Doc
    env: dict[str, str]
    #: local ports by the container's port names (grpc, metrics, http)
    ports: dict[str, int] = field(default_factory=dict)


def labels_match(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return all(labels.get(k) == v for k, v in selector.items())


def cluster_addresses(docs: list[Doc], pods: dict[str, Pod], nats_port: int) -> dict[str, str]:
    """In-cluster ``host:port`` (a Service, or a StatefulSet pod's stable name
    ``<set>-<i>.<service>``) to the local ``127.0.0.1:port`` of what answers
    there: this test's process of a paiju workload (the pods after the first
    get a port where nothing listens, as if they were not up yet), the test's
    NATS for the NATS pods. The in-cluster PostgreSQL is left out (the
    database URL is mapped as a whole)."""
    table: dict[str, str] = {}
    for svc in (d for d in docs if d["kind"] == "Service"):
        selector = svc["spec"].get("selector") or {}
        for w in workloads(docs):
            if not labels_match(selector, w["spec"]["template"]["metadata"]["labels"]):
                continue
            name = w["metadata"]["name"]
            container = w["spec"]["template"]["spec"]["containers"][0]
            by_number = {p["containerPort"]: p.get("name") for p in container["ports"]}
            for port in svc["spec"]["ports"]:
                target = port.get("targetPort", port["port"])
                port_name = target if isinstance(target, str) else by_number[target]
                if name in pods:
                    first = f"127.0.0.1:{pods[name].ports[port_name]}"
                elif name == "nats" and port_name == "client":
                    first = f"127.0.0.1:{nats_port}"
                else:
                    continue
                host = svc["metadata"]["name"]
                table[f"{host}:{port['port']}"] = first
                if w["kind"] == "StatefulSet" and w["spec"]["serviceName"] == host:
                    for i in range(int(w["spec"].get("replicas", 1))):
                        table[f"{name}-{i}.{host}:{port['port']}"] = (
                            first if i == 0 else f"127.0.0.1:{free_port()}")
    return table


HOST_PORT = re.compile(r"(?<![\w.@-])([a-z0-9](?:[a-z0-9.-]*[a-z0-9])?):(\d+)")


def localise(pod: Pod, docs: list[Doc], addresses: dict[str, str], database_url: str,
             root: Path, operator: dict[str, dict[str, str]],
             certificates: dict[str, dict[str, bytes]]) -> dict[str, str]:
    """``pod.env`` made to run here (see the module docstring); asserts what a
    cluster would make fail."""
    env = dict(pod.env)
    where = pod.service
    container = pod.workload["spec"]["template"]["spec"]["containers"][0]
    by_name = {p["name"]: p["containerPort"] for p in container["ports"]}

    # Ports: the probes and the Service ports must reach what the service binds.
    grpc_port = int(env.get("PAIJU_GRPC_PORT", GRPC_PORTS[pod.service]))
    assert by_name["grpc"] == grpc_port, where
    health_port = int(env["PAIJU_HEALTH_PORT"])
    assert by_name["health"] == health_port, where
    for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
        assert container[probe]["grpc"]["port"] == health_port, (where, probe)
    metrics_port = int(env.get("PAIJU_METRICS_PORT", METRICS_PORTS[pod.service]))
    assert by_name["metrics"] == metrics_port, where
    annotations = pod.workload["spec"]["template"]["metadata"]["annotations"]
    assert int(annotations["prometheus.io/port"]) == metrics_port, where
    env["PAIJU_GRPC_PORT"] = str(pod.ports["grpc"])
    env["PAIJU_HEALTH_PORT"] = str(pod.ports["health"])
    env["PAIJU_METRICS_PORT"] = str(pod.ports["metrics"])
    if pod.service == "gateway":
        assert by_name["http"] == int(env.get("PAIJU_GATEWAY_PORT", "8080")), where
        env["PAIJU_GATEWAY_PORT"] = str(pod.ports["http"])
    assert env.get("PAIJU_HOST") == "0.0.0.0", f"{where}: a pod must listen beyond loopback"
    env["PAIJU_HOST"] = "127.0.0.1"

    # The database: the dev overlay's own PostgreSQL (its credentials) or the
    # operator's; either way this test's fresh database.
    u = make_url(env["PAIJU_DATABASE_URL"])
    assert u.drivername.startswith("postgresql"), where
    if u.host != "db.example":
        pg = find(docs, "StatefulSet", u.host or "")
        pg_env = {e["name"]: e for e in pg["spec"]["template"]["spec"]["containers"][0]["env"]}
        assert (u.username, u.database) == (pg_env["POSTGRES_USER"]["value"],
                                            pg_env["POSTGRES_DB"]["value"]), where
        ref = pg_env["POSTGRES_PASSWORD"]["valueFrom"]["secretKeyRef"]
        pg_secret = container_env(docs, pg, {})["POSTGRES_PASSWORD"]
        assert u.password == pg_secret, f"{where}: the database URL's password ({ref['key']})"
    env["PAIJU_DATABASE_URL"] = database_url

    local_hosts(env, addresses, where)
    local_files(pod, env, docs, root, operator, certificates)
    return env


def local_hosts(env: dict[str, str], addresses: dict[str, str], where: str) -> None:
    """In ``env``, the cluster's host names as this test's local addresses;
    asserts that each address a pod is given is answered by something."""
    for key, value in env.items():
        if key.startswith("PAIJU_") and key != "PAIJU_DATABASE_URL":
            env[key] = HOST_PORT.sub(lambda m: addresses.get(m.group(0), m.group(0)), value)
    for key in ("PAIJU_NATS_URL", "PAIJU_LEDGER_ADDR", "PAIJU_LOBBY_ADDR", "PAIJU_TABLE_ADDRS",
                "PAIJU_TABLE_ADDRESS"):
        for item in filter(None, env.get(key, "").split(",")):
            assert item.split("//")[-1].lstrip("/").startswith("127.0.0.1:"), \
                f"{where}: {key} names {item!r}, which no Service or pod of the manifests answers"


def local_files(pod: Pod, env: dict[str, str], docs: list[Doc], root: Path,
                operator: dict[str, dict[str, str]],
                certificates: dict[str, dict[str, bytes]]) -> None:
    """The pod's mounted ConfigMaps and Secrets written under ``root``, and
    the paths of ``env`` moved there; asserts each path is on a volume."""
    where = pod.service
    mounts = container_files(docs, pod.workload, operator)
    local_mounts: dict[str, Path] = {}
    for mount_path, files in mounts.items():
        local = root / pod.service / mount_path.strip("/")
        local.mkdir(parents=True)
        for name, content in (files or {}).items():
            (local / name).write_text(content, encoding="utf-8")
        local_mounts[mount_path.rstrip("/")] = local
    for mount_path, (secret, items) in secret_mounts(pod.workload).items():
        if not MUTUAL_TLS or secret in operator or mounts[mount_path] is not None:
            continue  # the operator's, or rendered (the dev overlay's NATS seeds)
        assert secret in certificates, f"{where}: no Certificate makes the Secret {secret}"
        for file_name, key in items.items():
            (local_mounts[mount_path.rstrip("/")] / file_name).write_bytes(
                certificates[secret][key])
    for key, value in env.items():
        if not (key.startswith("PAIJU_") and value.startswith("/")):
            continue
        mount = next((m for m in local_mounts if value == m or value.startswith(m + "/")), None)
        assert mount is not None, f"{where}: {key}={value} is on no mounted volume"
        env[key] = str(local_mounts[mount]) + value[len(mount):]


@pytest.mark.parametrize("overlay", OVERLAYS)
async def test_every_service_starts_with_its_rendered_configuration(
        overlay: str, nats_for: NatsServer, local_database: str, tmp_path: Path) -> None:
    docs = render(overlay)
    pods: dict[str, Pod] = {}
    assert nats_for.creds is not None
    operator = operator_secrets(nats_for.creds)
    for w in workloads(docs):
        args = w["spec"]["template"]["spec"]["containers"][0].get("args", [])
        if args and args[0] in PAIJU_SERVICES:
            env = container_env(docs, w, operator)
            ports = {"grpc": free_port(), "metrics": free_port(), "http": free_port(),
                     "health": free_port()}
            pods[w["metadata"]["name"]] = Pod(args[0], w, env, ports)
    assert {p.service for p in pods.values()} == PAIJU_SERVICES
    nats_port = nats_for.port
    addresses = cluster_addresses(docs, pods, nats_port)
    procs: dict[str, tuple[subprocess.Popen[bytes], Path]] = {}
    localised: dict[str, dict[str, str]] = {}
    ca_dir = tmp_path / "ca"
    certificates = cert_manager_secrets(docs, ca_dir)
    try:
        for name, pod in pods.items():
            local = localised[name] = localise(pod, docs, addresses, local_database, tmp_path,
                                               operator, certificates)
            paiju = {k[len("PAIJU_"):]: v for k, v in local.items() if k.startswith("PAIJU_")}
            log = tmp_path / f"{name}.log"
            procs[name] = (start_service_process(pod.service, service_env(**paiju), log), log)

        async def up(name: str) -> None:
            proc, log = procs[name]
            try:
                port = pods[name].ports["health" if MUTUAL_TLS else "grpc"]
                await wait_serving(f"127.0.0.1:{port}", proc, START_DEADLINE)
            except (RuntimeError, TimeoutError) as e:
                tail = log.read_text(errors="replace")[-3000:]
                raise AssertionError(f"{overlay}: {name} did not start: {e}\n{tail}") from None

        results: list[Any] = await asyncio.gather(*(up(n) for n in pods), return_exceptions=True)
        errors = [r for r in results if isinstance(r, BaseException)]
        if errors:
            raise errors[0]
        # The lobby offers the coin servers of the rooms file its pod mounts.
        lobby = next(p for p in pods.values() if p.service == "lobby")
        mounted = next(files for files in container_files(docs, lobby.workload, operator).values()
                       if files and "rooms.yaml" in files)
        want = [s["server"] for s in yaml.safe_load(mounted["rooms.yaml"])["servers"]]
        addr = f"127.0.0.1:{lobby.ports['grpc']}"
        if MUTUAL_TLS:  # as the gateway, whose certificate the CA above issued
            identity: Any = importlib.import_module("paiju.security.identity")
            channel = identity.secure_channel(addr, identity.load(ca_dir, "gateway"), "lobby")
        else:
            channel = grpc.aio.insecure_channel(addr)
        async with channel:
            reply = await lobby_pb2_grpc.LobbyServiceStub(channel).ListServers(
                lobby_pb2.ListServersRequest(), timeout=10)
        assert [s.server for s in reply.servers] == want
        await ai_pod_answers_the_lobby(AiCheck(docs, addresses, operator, certificates,
                                               tmp_path, ca_dir, pods, localised), procs)
    finally:
        for proc, _ in procs.values():
            stop_process(proc)


#: The practice room the AI pod is asked for (a 斗地主 练习场 of the rooms file).
PRACTICE = ("doudizhu-practice", "doudizhu-practice-01")


@dataclass
class AiCheck:
    """What :func:`ai_pod_answers_the_lobby` needs of the services' run."""

    docs: list[Doc]
    addresses: dict[str, str]
    operator: dict[str, dict[str, str]]
    certificates: dict[str, dict[str, bytes]]
    root: Path
    ca_dir: Path
    pods: dict[str, Pod]
    #: each service pod's environment as it was started here
    localised: dict[str, dict[str, str]]

    def pod_of(self, service: str) -> Pod:
        return next(p for p in self.pods.values() if p.service == service)

    def env_of(self, service: str) -> dict[str, str]:
        return next(self.localised[n] for n, p in self.pods.items() if p.service == service)


def ai_arguments(pod: Pod, addresses: dict[str, str]) -> list[str]:
    """The AI pod's ``paiju`` arguments made to run here: ``--gateway`` the
    local gateway, ``--metrics-port`` a free port (asserting that the probes,
    the container port and the scrape annotation name the one it binds)."""
    container = pod.workload["spec"]["template"]["spec"]["containers"][0]
    args = list(container["args"])
    by_name = {p["name"]: p["containerPort"] for p in container["ports"]}
    i = args.index("--metrics-port")
    annotations = pod.workload["spec"]["template"]["metadata"]["annotations"]
    assert int(args[i + 1]) == by_name["metrics"] == int(annotations["prometheus.io/port"])
    for probe in ("readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"]["port"] == "metrics", probe
    args[i + 1] = str(pod.ports["metrics"])
    j = args.index("--gateway")
    url = HOST_PORT.sub(lambda m: addresses.get(m.group(0), m.group(0)), args[j + 1])
    assert "//127.0.0.1:" in url, f"ai: --gateway {args[j + 1]} is answered by no Service"
    args[j + 1] = url
    return args


async def ai_pod_answers_the_lobby(run: AiCheck,
                                   procs: dict[str, tuple[subprocess.Popen[bytes], Path]]
                                   ) -> None:
    """The AI players' pod started with its rendered arguments, environment
    and files: asked on NATS as the lobby asks (the lobby's own credentials
    and TLS) for a seat of a practice room, an AI answers ``ok``; it signs in
    at the gateway with an AI token of the shared Secret, which opens its
    account (granted the AI start coins in development mode only: outside it
    the gateway may not grant)."""
    import json
    import urllib.request

    import nats
    import nats.errors

    from paiju.config import load
    from paiju.runtime import subjects
    from paiju.tools.ai_worker import ai_player_id

    w = find(run.docs, "Deployment", "ai")
    pod = Pod("ai", w, container_env(run.docs, w, run.operator), {"metrics": free_port()})
    env = dict(pod.env)
    assert env.get("PAIJU_HOST") == "0.0.0.0", "ai: its /metrics must listen beyond loopback"
    env["PAIJU_HOST"] = "127.0.0.1"
    local_hosts(env, run.addresses, "ai")
    local_files(pod, env, run.docs, run.root, run.operator, run.certificates)
    paiju = {k[len("PAIJU_"):]: v for k, v in env.items() if k.startswith("PAIJU_")}
    log = run.root / "ai.log"
    proc = start_service_process(ai_arguments(pod, run.addresses),
                                 service_env(**paiju), log)
    procs["ai"] = (proc, log)

    def failed(why: str) -> AssertionError:
        return AssertionError(f"ai: {why}\n{log.read_text(errors='replace')[-3000:]}")

    metrics = f"http://127.0.0.1:{pod.ports['metrics']}/metrics"
    deadline = time.monotonic() + START_DEADLINE
    while True:  # its probes' endpoint
        try:
            await asyncio.to_thread(lambda: urllib.request.urlopen(metrics, timeout=2).read())
            break
        except OSError as e:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise failed(f"/metrics did not answer: {e}") from None
            await asyncio.sleep(0.3)
    lobby = load("lobby", run.env_of("lobby"))
    nc = await nats.connect(servers=lobby.nats_url.split(","),
                            **natsauth.client_options(lobby))
    server, room = PRACTICE
    ask = json.dumps({"room": room, "server": server, "game": "doudizhu", "seat": 1}).encode()
    try:
        while True:  # until the pool listens
            try:
                answer = json.loads((await nc.request(subjects.ai_seat("doudizhu"), ask,
                                                      timeout=2)).data)
                break
            except (nats.errors.NoRespondersError, nats.errors.TimeoutError):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise failed("no answer to the lobby's seat request") from None
                await asyncio.sleep(0.3)
    finally:
        await nc.close()
    assert answer == {"ok": True, "name": "机器人1"}, answer
    # Its sign-in opened its account (the gateway took the AI token).
    identity: Any = importlib.import_module("paiju.security.identity")
    addr = f"127.0.0.1:{run.pod_of('ledger').ports['grpc']}"
    dev = load("gateway", run.env_of("gateway")).dev_mode
    want = load("gateway", run.env_of("gateway")).ai_start_coins if dev else 0
    async with identity.secure_channel(addr, identity.load(run.ca_dir, "gateway"),
                                       "ledger") as channel:
        ledger = ledger_pb2_grpc.LedgerServiceStub(channel)
        coins: int | None = None
        while coins != want:  # opened, then (development mode) granted
            try:
                coins = (await ledger.GetBalance(ledger_pb2.GetBalanceRequest(
                    player=ai_player_id("机器人1")), timeout=10)).coins
            except grpc.aio.AioRpcError as e:
                if e.code() != grpc.StatusCode.NOT_FOUND:
                    raise failed(f"its account: {e.code().name} {e.details()}") from None
            if coins != want:
                if time.monotonic() > deadline:
                    raise failed(f"its account holds {coins}, not {want}")
                await asyncio.sleep(0.3)
