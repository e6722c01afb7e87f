"""paiju.security.identity: the CA and certificates on disk, and mutual TLS with a real
gRPC server on loopback (in-process)."""

from __future__ import annotations

import datetime
import shutil
from pathlib import Path

import grpc
import pytest
from cryptography import x509
from grpc_health.v1 import health_pb2, health_pb2_grpc

from paiju.runtime.service import Context
from paiju.security import identity
from paiju.security.identity import IDENTITIES, IdentityError
from tests.fixtures import as_identity, client_channel, running_service, tls_dir


async def nothing(ctx: Context) -> list[str]:
    return []


def test_ensure_makes_the_ca_and_every_identity_once(tmp_path: Path) -> None:
    made = identity.ensure(tmp_path / "tls")
    assert made == ["ca", "lobby", "table", "ledger", "gateway", "operator"]
    assert identity.ensure(tmp_path / "tls") == []
    for name in IDENTITIES:
        loaded = identity.load(tmp_path / "tls", name)
        cert = x509.load_pem_x509_certificate(loaded.cert)
        sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        assert sans.get_values_for_type(x509.DNSName) == [name]
    assert (tmp_path / "tls" / "ledger-key.pem").stat().st_mode & 0o077 == 0
    assert (tmp_path / "tls" / "ca-key.pem").stat().st_mode & 0o077 == 0


def test_ensure_reissues_expiring_and_foreign_certificates(tmp_path: Path) -> None:
    tls, other = tmp_path / "tls", tmp_path / "other"
    identity.ensure(tls)
    identity.issue(tls, "table", days=10)  # within the 30 days of renewal
    identity.make_ca(other)
    identity.issue(other, "lobby")
    shutil.copy(other / "lobby.pem", tls / "lobby.pem")
    shutil.copy(other / "lobby-key.pem", tls / "lobby-key.pem")
    assert identity.ensure(tls) == ["lobby", "table"]
    table = x509.load_pem_x509_certificate((tls / "table.pem").read_bytes())
    left = table.not_valid_after_utc - datetime.datetime.now(datetime.UTC)
    assert left > datetime.timedelta(days=300)


def test_load_names_the_setting_and_the_missing_file(tmp_path: Path) -> None:
    with pytest.raises(IdentityError, match=r"PAIJU_TLS_DIR=.*ca\.pem"):
        identity.load(tmp_path, "ledger")
    identity.make_ca(tmp_path)
    with pytest.raises(IdentityError, match=r"PAIJU_TLS_DIR=.*ledger\.pem"):
        identity.load(tmp_path, "ledger")
    identity.issue(tmp_path, "lobby")
    shutil.copy(tmp_path / "lobby.pem", tmp_path / "ledger.pem")
    shutil.copy(tmp_path / "lobby-key.pem", tmp_path / "ledger-key.pem")
    with pytest.raises(IdentityError, match="not the certificate of 'ledger'"):
        identity.load(tmp_path, "ledger")
    with pytest.raises(IdentityError, match="no such identity"):
        identity.issue(tmp_path, "mallory")


async def check(channel: grpc.aio.Channel) -> str:
    try:
        reply: health_pb2.HealthCheckResponse = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(), timeout=5)
    except grpc.aio.AioRpcError as e:
        return str(e.code().name)
    return str(health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status))


async def test_a_client_checks_it_reached_the_service_it_meant() -> None:
    """The server's certificate must name the service the client asked for:
    a lobby answering where the ledger was expected is refused."""
    async with running_service("lobby", nothing) as addr:
        async with client_channel(addr, "gateway", peer="lobby") as ch:
            assert await check(ch) == "SERVING"
        async with client_channel(addr, "gateway", peer="ledger") as ch:
            assert await check(ch) == "UNAVAILABLE"


async def test_the_main_port_refuses_callers_without_a_certificate_of_the_ca(
        tmp_path: Path) -> None:
    identity.make_ca(tmp_path)
    identity.issue(tmp_path, "operator", hosts=("127.0.0.1",))
    ca = (tls_dir() / "ca.pem").read_bytes()
    foreign = identity.load(tmp_path, "operator")
    async with running_service("ledger", nothing) as addr:
        async with grpc.aio.insecure_channel(addr) as ch:
            assert await check(ch) == "UNAVAILABLE"
        no_cert = grpc.ssl_channel_credentials(root_certificates=ca)
        async with grpc.aio.secure_channel(addr, no_cert) as ch:
            assert await check(ch) == "UNAVAILABLE"
        other_ca = grpc.ssl_channel_credentials(root_certificates=ca, private_key=foreign.key,
                                                certificate_chain=foreign.cert)
        async with grpc.aio.secure_channel(addr, other_ca) as ch:
            assert await check(ch) == "UNAVAILABLE"
        async with identity.secure_channel(addr, as_identity("operator"), None) as ch:
            assert await check(ch) == "SERVING"


async def test_the_health_port_is_plain_and_serves_only_health() -> None:
    contexts: list[Context] = []
    async with running_service("table", nothing, contexts=contexts):
        health = f"127.0.0.1:{contexts[0].config.health_port}"
        async with grpc.aio.insecure_channel(health) as ch:
            assert await check(ch) == "SERVING"
            stub = health_pb2_grpc.HealthStub(ch)
            liveness = await stub.Check(health_pb2.HealthCheckRequest(service="liveness"))
            assert liveness.status == health_pb2.HealthCheckResponse.SERVING
            with pytest.raises(grpc.aio.AioRpcError) as e:
                await ch.unary_unary("/paiju.table.v1.TableService/ListGames")(b"", timeout=5)
            assert e.value.code() == grpc.StatusCode.UNIMPLEMENTED
            with pytest.raises(grpc.aio.AioRpcError) as e:
                await ch.stream_stream(
                    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo")(
                    iter([b"\x3a\x00"]), timeout=5).read()
            assert e.value.code() == grpc.StatusCode.UNIMPLEMENTED


def test_paiju_certs_issues_what_is_missing_and_refuses_unknown_identities(
        tmp_path: Path) -> None:
    import subprocess
    import sys

    def certs(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "paiju.cli", "certs", str(tmp_path), *args],
                              capture_output=True, text=True, timeout=60)

    done = certs("--host", "ledger.paiju.svc")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"{tmp_path}: ca, lobby, table, ledger, gateway, operator"
    ledger = x509.load_pem_x509_certificate((tmp_path / "ledger.pem").read_bytes())
    sans = ledger.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert sans.get_values_for_type(x509.DNSName) == ["ledger", "ledger.paiju.svc"]
    assert certs().stdout.strip() == f"{tmp_path}: nothing to do"
    assert certs("--reissue", "table").stdout.strip() == f"{tmp_path}: table"
    assert (tmp_path / "table.pem").read_bytes() != (tmp_path / "lobby.pem").read_bytes()
    refused = certs("--reissue", "mallory")
    assert refused.returncode == 2
    assert "no such identity 'mallory'" in refused.stderr


async def test_a_server_takes_a_reissued_certificate_without_a_restart(tmp_path: Path) -> None:
    """``paiju certs --reissue``: new connections get the new certificate
    (here one that also names ``renewed.example``), the process keeps running."""
    for name in ("ca.pem", "ca-key.pem", "lobby.pem", "lobby-key.pem"):
        shutil.copy(tls_dir() / name, tmp_path / name)
    async with running_service("lobby", nothing, {"tls_dir": tmp_path}) as addr:
        async with client_channel(addr, "gateway", peer="renewed.example") as ch:
            assert await check(ch) == "UNAVAILABLE"  # the old certificate does not name it
        identity.issue(tmp_path, "lobby", hosts=("127.0.0.1", "renewed.example"))
        async with client_channel(addr, "gateway", peer="renewed.example") as ch:
            assert await check(ch) == "SERVING"
        (tmp_path / "lobby-key.pem").write_bytes(
            (tls_dir() / "ledger-key.pem").read_bytes())  # a key of another certificate
        async with client_channel(addr, "gateway", peer="renewed.example") as ch:
            assert await check(ch) == "SERVING"  # kept the last good one
    with pytest.raises(IdentityError, match=r"lobby-key\.pem is not the key of lobby\.pem"):
        identity.load(tmp_path, "lobby")
