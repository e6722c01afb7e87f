"""NATS over TLS ("TLS in production"): against a real nats-server
serving TLS only, with a certificate from paiju's CA (paiju.security.identity's
helpers, as cert-manager issues ``paiju-nats`` in the production overlay) and
a client certificate required (``verify: true``, as the overlay's NATS), a
service connects with what its configuration says (``PAIJU_NATS_URL``
``tls://``, ``PAIJU_NATS_TLS_CA``, ``PAIJU_NATS_TLS_CERT`` / ``_KEY``, its
NKey) and its events go through; a client that does not trust paiju's CA,
one without a client certificate, one with a certificate of another CA and
one in plain text are all refused before they can say who they are."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Iterator
from pathlib import Path

import nats
import pytest
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg

from paiju.config import Config, load
from paiju.runtime import natsconn
from paiju.security import identity, natsauth, nkey_seeds
from tests.fixtures import NatsServer


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """paiju's CA with the NATS servers' certificate (for 127.0.0.1, where the
    test reaches it) and the services' client certificates."""
    folder = tmp_path_factory.mktemp("nats-tls")
    identity.make_ca(folder)
    identity.issue(folder, "nats", hosts=("127.0.0.1",))
    for name in ("table", "gateway"):
        identity.issue(folder, name)
    return folder


@pytest.fixture(scope="module")
def server(pki: Path) -> Iterator[NatsServer]:
    s = NatsServer(auth=True, tls=pki, verify=True)
    s.start()
    try:
        yield s
    finally:
        s.close()


def tls_url(server: NatsServer) -> str:
    return f"tls://127.0.0.1:{server.port}"


def service_config(server: NatsServer, pki: Path, service: str) -> Config:
    """``service``'s configuration from the environment a production pod gets."""
    return load(service, {
        "PAIJU_NATS_URL": tls_url(server),
        "PAIJU_NATS_NKEY_SEED_FILE": str(server.seed_file(service)),
        "PAIJU_NATS_TLS_CA": str(pki / "ca.pem"),
        "PAIJU_NATS_TLS_CERT": str(pki / f"{service}.pem"),
        "PAIJU_NATS_TLS_KEY": str(pki / f"{service}-key.pem"),
    })


async def refused(server: NatsServer, **options: object) -> BaseException:
    """The error a client with ``options`` gets (it must get one)."""
    seed = nkey_seeds.read_seed(server.seed_file("gateway"))
    try:
        nc = await nats.connect(tls_url(server), allow_reconnect=False, connect_timeout=3,
                                max_reconnect_attempts=0, nkeys_seed_str=seed,
                                **options)
    except Exception as e:
        return e
    await nc.close()
    raise AssertionError(f"a client with {sorted(options)} was let in")


async def published_until_seen(table: NATS, got: asyncio.Queue[Msg],
                               seconds: float = 30) -> Msg:
    """The first event ``got`` receives of those ``table`` publishes, one a
    second. Core NATS delivers at most once: a reconnect of either client (a
    TLS handshake past the server's 2 s on a loaded machine) loses what was
    in flight, so one lost publish is not the failure this test looks for;
    none arriving within ``seconds`` is."""
    deadline = asyncio.get_running_loop().time() + seconds
    while True:
        await natsconn.publish(table, "paiju.table.r1.events", "turn", {"seat": 1}, seq=3)
        try:
            return await asyncio.wait_for(got.get(), 1)
        except TimeoutError:
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"no event in {seconds} s: table connected "
                                     f"{table.is_connected}, reconnects "
                                     f"{table.stats['reconnects']}") from None


async def test_services_connect_with_their_configured_tls_and_events_flow(
        server: NatsServer, pki: Path) -> None:
    table_config = service_config(server, pki, "table")
    gateway_config = service_config(server, pki, "gateway")
    assert table_config.nats_tls_ca and table_config.nats_tls_cert
    table = await natsconn.connect(table_config.nats_url, None, "table-tls",
                                   first_attempt_timeout=15,
                                   auth=natsauth.client_options(table_config))
    gateway = await natsconn.connect(gateway_config.nats_url, None, "gateway-tls",
                                     first_attempt_timeout=15,
                                     auth=natsauth.client_options(gateway_config))
    try:
        assert table.connected_url is not None and table.connected_url.scheme == "tls"
        got: asyncio.Queue[Msg] = asyncio.Queue()

        async def seen(msg: Msg) -> None:
            await got.put(msg)

        await gateway.subscribe("paiju.table.r1.events", cb=seen)
        await gateway.flush()
        msg = await published_until_seen(table, got)
        assert natsconn.decode(msg.data)["seat"] == 1
    finally:
        await table.close()
        await gateway.close()


async def test_a_client_that_does_not_trust_the_ca_is_refused(server: NatsServer) -> None:
    # the system's trust store: paiju's CA is not in it
    e = await refused(server, tls=ssl.create_default_context())
    assert "certificate verify failed" in repr(e) or isinstance(e, ssl.SSLError), repr(e)


async def test_a_client_without_a_certificate_is_refused(server: NatsServer,
                                                        pki: Path) -> None:
    ctx = ssl.create_default_context(cafile=str(pki / "ca.pem"))
    e = await refused(server, tls=ctx)
    assert isinstance(e, ConnectionError | ssl.SSLError), repr(e)  # the handshake, not the NKey


async def test_a_certificate_of_another_ca_is_refused(server: NatsServer, pki: Path,
                                                      tmp_path: Path) -> None:
    identity.make_ca(tmp_path)
    identity.issue(tmp_path, "gateway")
    ctx = ssl.create_default_context(cafile=str(pki / "ca.pem"))
    ctx.load_cert_chain(str(tmp_path / "gateway.pem"), str(tmp_path / "gateway-key.pem"))
    e = await refused(server, tls=ctx)
    assert isinstance(e, ConnectionError | ssl.SSLError), repr(e)


async def test_a_plain_text_client_is_refused(server: NatsServer) -> None:
    seed = nkey_seeds.read_seed(server.seed_file("gateway"))
    with pytest.raises(Exception):  # noqa: B017 - nats-py's kinds differ by version
        nc = await nats.connect(server.address, allow_reconnect=False, connect_timeout=3,
                                max_reconnect_attempts=0, nkeys_seed_str=seed)
        await nc.close()
