"""Service identity with real processes: every gRPC server of
paiju refuses callers without a certificate of the platform's CA, each RPC is
allowed only to the identities the authorisation table names
(``PERMISSION_DENIED`` for the others), health answers on the plain port
without a certificate, and a service refuses to start outside development
mode without its certificates."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from paiju.ledger.v1 import ledger_pb2
from paiju.security import identity
from paiju.security.authz import RULES, allowed
from tests.fixtures import (
    NatsServer,
    as_identity,
    client_channel,
    free_port,
    service_env,
    start_service_process,
    stop_process,
    tls_dir,
    wait_health,
)
from tests.foundation.test_authz import proto_methods

SERVICES = ("ledger", "table", "lobby", "gateway")
#: The proto service each paiju service serves (the gateway serves only health).
SERVES = {"ledger": "paiju.ledger.v1.LedgerService", "table": "paiju.table.v1.TableService",
          "lobby": "paiju.lobby.v1.LobbyService"}
GRANT_KEY = "a-grant-key-for-the-security-tests"
GRANT = "/paiju.ledger.v1.LedgerService/Grant"


@dataclass
class Running:
    """One service process: its gRPC and plain health addresses, log, process."""

    addr: str
    health: str
    log: Path
    proc: subprocess.Popen[bytes]


@pytest.fixture(scope="module")
def nats(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NatsServer]:
    """A NATS server with each service's NKey user, as outside development mode."""
    server = NatsServer(auth=True)
    server.start()
    try:
        yield server
    finally:
        server.close()


def start(name: str, nats: NatsServer, data: Path, **env: str) -> Running:
    """``paiju <name>`` alone on free ports (the services it calls are not
    running), connected to ``nats`` as its own NKey user."""
    grpc_port, health_port = free_port(), free_port()
    nowhere = f"127.0.0.1:{free_port()}"
    environment = service_env(
        GRPC_PORT=str(grpc_port), HEALTH_PORT=str(health_port), METRICS_PORT=str(free_port()),
        GATEWAY_PORT=str(free_port()), NATS_URL=nats.address,
        NATS_NKEY_SEED_FILE=str(nats.seed_file(name)), DATA_DIR=str(data),
        LEDGER_ADDR=nowhere, LOBBY_ADDR=nowhere, TABLE_ADDRS=nowhere, DRAIN_SECONDS="2",
        TOKEN_SECRET="a-token-key-for-the-security-tests-only", GRANT_KEY=GRANT_KEY, **env)
    log = data / f"{name}.log"
    data.mkdir(parents=True, exist_ok=True)
    proc = start_service_process(name, environment, log)
    return Running(f"127.0.0.1:{grpc_port}", f"127.0.0.1:{health_port}", log, proc)


@pytest.fixture(scope="module")
def services(nats: NatsServer, tmp_path_factory: pytest.TempPathFactory
             ) -> Iterator[dict[str, Running]]:
    """The four services as processes, outside development mode, with TLS."""
    data = tmp_path_factory.mktemp("security")
    running: dict[str, Running] = {}
    try:
        for name in SERVICES:
            running[name] = start(name, nats, data / name, DEV_MODE="")
        for r in running.values():
            asyncio.run(wait_health(r.addr, "SERVING", timeout=60, proc=r.proc))
        yield running
    finally:
        for r in running.values():
            stop_process(r.proc)


async def health(channel: grpc.aio.Channel) -> str:
    try:
        reply: health_pb2.HealthCheckResponse = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(), timeout=5)
    except grpc.aio.AioRpcError as e:
        return str(e.code().name)
    return str(health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status))


async def test_every_server_refuses_callers_without_a_valid_certificate(
        services: dict[str, Running], tmp_path: Path) -> None:
    identity.make_ca(tmp_path)  # another CA, with an "operator" of its own
    identity.issue(tmp_path, "operator", hosts=("127.0.0.1",))
    foreign = identity.load(tmp_path, "operator")
    ca = (tls_dir() / "ca.pem").read_bytes()
    callers = {
        "no TLS": grpc.aio.insecure_channel,
        "no certificate": lambda addr: grpc.aio.secure_channel(
            addr, grpc.ssl_channel_credentials(root_certificates=ca)),
        "another CA's certificate": lambda addr: grpc.aio.secure_channel(
            addr, grpc.ssl_channel_credentials(root_certificates=ca, private_key=foreign.key,
                                               certificate_chain=foreign.cert)),
    }
    for name, r in services.items():
        for what, make in callers.items():
            async with make(r.addr) as ch:
                assert await health(ch) == "UNAVAILABLE", (name, what)
                with pytest.raises(grpc.aio.AioRpcError) as e:
                    await ch.unary_unary("/grpc.reflection.v1alpha.ServerReflection/"
                                         "ServerReflectionInfo")(b"", timeout=5)
                assert e.value.code() == grpc.StatusCode.UNAVAILABLE, (name, what)
        async with client_channel(r.addr, "operator", peer=name) as ch:
            assert await health(ch) == "SERVING", name  # the same server, a valid caller


async def outcome(addr: str, peer: str, caller: str, method: str) -> tuple[str, str]:
    """The status code and details of calling ``method`` (an empty request) as ``caller``."""
    async with client_channel(addr, caller, peer=peer) as ch:
        try:
            await ch.unary_unary(method)(b"", timeout=15)
        except grpc.aio.AioRpcError as e:
            return e.code().name, e.details() or ""
    return "OK", ""


async def test_each_rpc_is_refused_to_every_identity_the_table_does_not_name(
        services: dict[str, Running]) -> None:
    calls = [(name, method, caller) for name, service in SERVES.items()
             for method in sorted(proto_methods()) if method.startswith(f"/{service}/")
             for caller in identity.IDENTITIES]
    assert len(calls) >= 5 * 27
    channels = {(name, caller): client_channel(services[name].addr, caller, peer=name)
                for name in SERVES for caller in identity.IDENTITIES}
    try:
        results = []
        for name, method, caller in calls:  # one at a time: a refusal is not a timeout
            try:
                await channels[name, caller].unary_unary(method)(b"", timeout=15)
                results.append(("OK", ""))
            except grpc.aio.AioRpcError as e:
                results.append((e.code().name, e.details() or ""))
    finally:
        for ch in channels.values():
            await ch.close()
    for (name, method, caller), (code, details) in zip(calls, results, strict=True):
        refused = (code, details) == ("PERMISSION_DENIED",
                                      f"permission_denied: {caller} may not call {method}")
        assert refused != allowed(RULES, method, caller, dev_mode=False), (
            name, method, caller, code, details)


async def test_coins_move_only_for_the_identities_that_may_move_them(
        services: dict[str, Running]) -> None:
    ledger = services["ledger"].addr
    code, details = await outcome(ledger, "ledger", "gateway", "/paiju.ledger.v1.LedgerService/"
                                  "Settle")
    assert (code, details) == ("PERMISSION_DENIED", "permission_denied: gateway may not call "
                               "/paiju.ledger.v1.LedgerService/Settle")
    for caller in ("gateway", "table", "lobby", "ledger"):  # outside development mode
        assert (await outcome(ledger, "ledger", caller, GRANT))[0] == "PERMISSION_DENIED"
    async with client_channel(ledger, "gateway", peer="ledger") as ch:
        await ch.unary_unary("/paiju.ledger.v1.LedgerService/OpenAccount")(
            ledger_pb2.OpenAccountRequest(player="p-grant", name="P").SerializeToString(),
            timeout=10)
    async with client_channel(ledger, "operator", peer="ledger") as ch:
        reply = await ch.unary_unary("/paiju.ledger.v1.LedgerService/Grant")(
            ledger_pb2.GrantRequest(player="p-grant", coins=500, reason="test",
                                    grant_id="g-sec-1").SerializeToString(),
            metadata=(("x-paiju-grant-key", GRANT_KEY),), timeout=10)
    assert ledger_pb2.Account.FromString(reply).coins == 500


async def test_in_development_mode_the_gateway_may_grant(nats: NatsServer,
                                                         tmp_path: Path) -> None:
    r = start("ledger", nats, tmp_path / "dev", DEV_MODE="1")
    try:
        await wait_health(r.addr, "SERVING", timeout=60, proc=r.proc)
        async with client_channel(r.addr, "gateway", peer="ledger") as ch:
            await ch.unary_unary("/paiju.ledger.v1.LedgerService/OpenAccount")(
                ledger_pb2.OpenAccountRequest(player="p-dev", name="D").SerializeToString(),
                timeout=10)
            reply = await ch.unary_unary(GRANT)(
                ledger_pb2.GrantRequest(player="p-dev", coins=700, reason="dev_login",
                                        grant_id="g-dev-1").SerializeToString(),
                metadata=(("x-paiju-grant-key", GRANT_KEY),), timeout=10)
        assert ledger_pb2.Account.FromString(reply).coins == 700
        assert (await outcome(r.addr, "ledger", "table", GRANT))[0] == "PERMISSION_DENIED"
    finally:
        stop_process(r.proc)


async def test_health_answers_on_the_plain_port_without_a_certificate(
        services: dict[str, Running]) -> None:
    for name, r in services.items():
        async with grpc.aio.insecure_channel(r.health) as ch:
            assert await health(ch) == "SERVING", name
            if name in SERVES:  # nothing but health: no game or coin state
                method = next(m for m in proto_methods() if m.startswith(f"/{SERVES[name]}/"))
                with pytest.raises(grpc.aio.AioRpcError) as e:
                    await ch.unary_unary(method)(b"", timeout=5)
                assert e.value.code() == grpc.StatusCode.UNIMPLEMENTED, name


@pytest.mark.parametrize("name", SERVICES)
def test_outside_development_mode_a_service_needs_its_certificates(
        name: str, nats: NatsServer, tmp_path: Path) -> None:
    r = start(name, nats, tmp_path / "none", DEV_MODE="", TLS_DIR="")
    assert r.proc.wait(timeout=60) == 2, r.log.read_text()
    assert "PAIJU_TLS_DIR is not set" in r.log.read_text()
    empty = tmp_path / "empty"
    empty.mkdir()
    r = start(name, nats, tmp_path / "empty-data", DEV_MODE="", TLS_DIR=str(empty))
    assert r.proc.wait(timeout=60) == 2, r.log.read_text()
    assert "cannot read ca.pem" in r.log.read_text()


async def test_in_development_mode_without_certificates_a_service_runs_insecure(
        nats: NatsServer, tmp_path: Path) -> None:
    r = start("ledger", nats, tmp_path / "insecure", DEV_MODE="1", TLS_DIR="")
    try:
        for _ in range(600):
            async with grpc.aio.insecure_channel(r.addr) as ch:
                if await health(ch) == "SERVING":
                    break
            assert r.proc.poll() is None, r.log.read_text()
            await asyncio.sleep(0.1)
        assert "insecure gRPC" in r.log.read_text()
        async with identity.secure_channel(r.addr, as_identity("operator"), "ledger") as ch:
            assert await health(ch) == "UNAVAILABLE"  # no TLS at all on that port
    finally:
        stop_process(r.proc)
