"""NATS accounts (paiju.security.natsauth): against a real nats-server run
with the generated configuration, a client without credentials cannot
connect, and each service's user publishes and subscribes exactly the
subjects events.md gives it, no more.

The expectations below are written from shared/spec/events.md ("Subjects")
and the deployment's trust boundaries (the gateway never publishes table
events; only the gateway reads
player subjects; control subjects only among gateways; presence from gateways
to the lobby and the table; JetStream for the table's game log), not from
:data:`paiju.security.natsauth.PERMISSIONS`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import nats
import nats.errors
import pytest
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.js import api

from paiju.config import load
from paiju.runtime import natsconn, subjects
from paiju.runtime.table_instances import TableInstances
from paiju.security import natsauth, nkey_seeds
from paiju.tools.up import Platform, plan
from services.table.adapters.instance_registry import Registration
from tests.conftest import REPO
from tests.fixtures import NatsServer, free_port, service_env, until

#: One concrete subject of each kind.
SUBJECTS = {
    "rooms": "paiju.lobby.s1.rooms",
    "private": "paiju.lobby.s1.room.s1-x0123456789ab",
    "table": "paiju.table.r1.events",
    "player": "paiju.player.p1.events",
    "control": "paiju.player.p1.control",
    "presence": "paiju.presence.gateway.p1",
    "others_presence": "paiju.presence.gateway-2.p1",
    "gamelog": "paiju.gamelog.pool1.g1",
    "chat": "paiju.chat.r1",
    "ai_seat": "paiju.ai.seat.doudizhu",
    "other": "paiju.unknown.subject",
}
#: What each service may publish (events.md "Subjects": who sends which event;
#: the gateway, user ``gateway``, its own presence only).
MAY_PUBLISH = {
    "lobby": {"rooms", "private", "ai_seat"},
    "table": {"table", "player", "gamelog"},
    "ledger": {"player"},
    "gateway": {"presence", "control", "chat"},
}
#: What each service may subscribe: clients' subjects only for the gateway.
MAY_SUBSCRIBE = {
    "lobby": {"presence", "others_presence"},
    "table": {"presence", "others_presence"},
    "ledger": set(),
    # The gateways read every gateway's presence for the spectator counts, and
    # the quick chat they publish for the rooms' players.
    "gateway": {"rooms", "private", "table", "player", "control", "chat", "presence",
                "others_presence"},
    # The AI pool reads the lobby's seat requests only.
    "ai": {"ai_seat"},
}


@pytest.fixture(scope="module")
def server() -> Iterator[NatsServer]:
    """A NATS server with the services' users (and the test observer)."""
    s = NatsServer(auth=True)
    s.start()
    try:
        yield s
    finally:
        s.close()


class Errors:
    """What the server told a client asynchronously (permission violations)."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    async def on_error(self, e: Exception) -> None:
        self.seen.append(str(e))

    async def count(self, kind: str, n: int) -> int:
        """How many errors mention ``kind`` once ``n`` have come (or 30 s passed:
        the server's errors come on the client's socket, in no order with what
        other clients receive)."""
        with contextlib.suppress(TimeoutError):
            await until(lambda: self._count(kind) >= n, timeout=30)
        return self._count(kind)

    def _count(self, kind: str) -> int:
        return sum(f"permissions violation for {kind}" in e.lower() for e in self.seen)


async def as_service(server: NatsServer, service: str, errors: Errors | None = None) -> NATS:
    """A connection with ``service``'s credentials, as the service makes it."""
    config = load(service).model_copy(update={  # a gateway's NATS user is its instance
        "nats_nkey_seed_file": server.seed_file(service), "instance": service})
    options = natsauth.client_options(config)
    return await nats.connect(server.address, allow_reconnect=False, connect_timeout=3,
                              error_cb=(errors or Errors()).on_error, **options)


@pytest.fixture
async def observer(server: NatsServer) -> AsyncIterator[NATS]:
    nc = await nats.connect(server.url)
    yield nc
    await nc.close()


async def test_a_client_without_credentials_cannot_connect(server: NatsServer) -> None:
    with pytest.raises(nats.errors.Error, match="Authorization Violation"):
        await nats.connect(server.address, allow_reconnect=False, connect_timeout=3)


async def test_a_key_the_server_does_not_know_cannot_connect(server: NatsServer) -> None:
    with pytest.raises(nats.errors.Error, match="Authorization Violation"):
        await nats.connect(server.address, allow_reconnect=False, connect_timeout=3,
                           nkeys_seed_str=natsauth.new_seed())


@pytest.mark.parametrize("service", sorted(MAY_PUBLISH))
async def test_a_service_publishes_only_its_subjects(server: NatsServer, observer: NATS,
                                                     service: str) -> None:
    got: list[str] = []
    done = asyncio.Event()
    sentinel = SUBJECTS[sorted(MAY_PUBLISH[service])[0]]

    async def seen(msg: Msg) -> None:
        got.append(msg.subject)
        if msg.data == b"sentinel":
            done.set()

    await observer.subscribe("paiju.>", cb=seen)
    await observer.flush()
    errors = Errors()
    nc = await as_service(server, service, errors)
    try:
        for subject in SUBJECTS.values():
            await nc.publish(subject, b"probe")
        # one connection's messages arrive in order: once this one is there,
        # every earlier one the server let through is too
        await nc.publish(sentinel, b"sentinel")
        await asyncio.wait_for(done.wait(), 30)
        refused = set(SUBJECTS) - MAY_PUBLISH[service]
        assert await errors.count("publish", len(refused)) == len(refused), errors.seen
    finally:
        await nc.close()
    delivered = {kind for kind, subject in SUBJECTS.items() if subject in got[:-1]}
    assert delivered == MAY_PUBLISH[service]


@pytest.mark.parametrize("service", sorted(MAY_SUBSCRIBE))
async def test_a_service_subscribes_only_its_subjects(server: NatsServer, observer: NATS,
                                                      service: str) -> None:
    """Each subject's probe reaches the service's subscription exactly where
    MAY_SUBSCRIBE allows it; every other subscription is refused by the server.
    The probes go out in rounds, each closed by a numbered sentinel on the
    service's own inbox, until a round's sentinel came and every allowed
    subject was heard (a message published just after a subscription's flush
    was not always delivered to it in runs here, cause unknown: the rounds absorb that,
    while a refused subject is never heard in any round)."""
    got: list[str] = []
    sentinels: set[bytes] = set()

    async def seen(msg: Msg) -> None:
        if msg.data.startswith(b"sentinel"):
            sentinels.add(msg.data)
        else:
            got.append(msg.subject)

    errors = Errors()
    nc = await as_service(server, service, errors)
    try:
        own_inbox = f"{natsauth.inbox_prefix(service)}.probe"
        await nc.subscribe(own_inbox, cb=seen)
        await nc.flush()
        for subject in SUBJECTS.values():
            await nc.subscribe(subject, cb=seen)
        await nc.flush()
        for n in range(10):
            for subject in SUBJECTS.values():
                await observer.publish(subject, b"probe")
            mark = f"sentinel {n}".encode()
            await observer.publish(own_inbox, mark)
            await observer.flush()
            with contextlib.suppress(TimeoutError):
                await until(lambda m=mark: m in sentinels, timeout=3)  # type: ignore[misc]
            heard = {kind for kind, subject in SUBJECTS.items() if subject in got}
            if mark in sentinels and heard >= MAY_SUBSCRIBE[service]:
                break
        assert sentinels, "the service's own inbox never got a sentinel"
        refused = set(SUBJECTS) - MAY_SUBSCRIBE[service]
        assert await errors.count("subscription", len(refused)) == len(refused), errors.seen
    finally:
        await nc.close()
    delivered = {kind for kind, subject in SUBJECTS.items() if subject in got}
    assert delivered == MAY_SUBSCRIBE[service]


@pytest.mark.parametrize("service", sorted(MAY_SUBSCRIBE))
async def test_no_service_reads_another_services_replies(server: NatsServer,
                                                         service: str) -> None:
    errors = Errors()
    nc = await as_service(server, service, errors)
    try:
        for other in natsauth.SERVICES:
            if other != service:
                await nc.subscribe(f"{natsauth.inbox_prefix(other)}.>")
        await nc.subscribe("_INBOX.>")
        await nc.flush()
        n = len(natsauth.SERVICES)
        assert await errors.count("subscription", n) == n, errors.seen
    finally:
        await nc.close()


async def test_the_ai_pool_answers_the_lobbys_seat_request_and_publishes_nothing(
        server: NatsServer, observer: NATS) -> None:
    """The ``ai`` user answers a request it received (NATS allow_responses)
    and every subject it publishes to itself is refused."""
    errors = Errors()
    ai = await as_service(server, "ai", errors)
    lobby = await as_service(server, "lobby")
    got: list[str] = []

    async def seen(msg: Msg) -> None:
        got.append(msg.subject)

    async def answer(msg: Msg) -> None:
        await msg.respond(b'{"ok": false}')

    try:
        await observer.subscribe("paiju.>", cb=seen)
        await observer.flush()
        await ai.subscribe(subjects.ai_seat("doudizhu"), subjects.AI_POOL, cb=answer)
        await ai.flush()
        # Core NATS delivers at most once: on a loaded machine a request (or
        # its answer) may be lost, so the lobby asks again, as it would.
        reply = None
        for _ in range(6):
            with contextlib.suppress(nats.errors.TimeoutError, nats.errors.NoRespondersError):
                reply = await lobby.request(subjects.ai_seat("doudizhu"), b"{}", timeout=5)
                break
        assert reply is not None, f"no answer to the seat request; errors: {errors.seen}"
        assert reply.data == b'{"ok": false}'
        for subject in SUBJECTS.values():
            await ai.publish(subject, b"probe")
        assert await errors.count("publish", len(SUBJECTS)) == len(SUBJECTS), errors.seen
        await observer.flush()
        assert [s for s in got if s != subjects.ai_seat("doudizhu")] == []
    finally:
        await ai.close()
        await lobby.close()


async def test_an_injected_session_started_or_hand_is_refused_at_the_server(
        server: NatsServer, observer: NATS) -> None:
    """Attacks with a service's own credentials: the lobby's
    user closing a player's socket or faking a hand gets nothing through."""
    got: list[Msg] = []
    done = asyncio.Event()

    async def seen(msg: Msg) -> None:
        got.append(msg)
        if msg.data == b"sentinel":
            done.set()

    await observer.subscribe("paiju.player.victim.*", cb=seen)
    await observer.subscribe(SUBJECTS["rooms"], cb=seen)
    await observer.flush()
    lobby = await as_service(server, "lobby")
    try:
        await natsconn.publish(lobby, "paiju.player.victim.control", "session_started",
                               {"session": "evil"})
        await natsconn.publish(lobby, "paiju.player.victim.events", "hand",
                               {"cards": ["SA"]})
        await lobby.publish(SUBJECTS["rooms"], b"sentinel")
        await asyncio.wait_for(done.wait(), 30)
    finally:
        await lobby.close()
    assert [m.subject for m in got] == [SUBJECTS["rooms"]]


async def test_the_table_reaches_its_game_log_and_leases(server: NatsServer) -> None:
    """What the durable game log needs (a stream on paiju.gamelog.>, key-value
    buckets, an ordered consumer) works with the table's user, whose replies
    come on its own inbox prefix."""
    nc = await as_service(server, "table")
    try:
        js = nc.jetstream(timeout=5)
        await js.add_stream(name="PAIJU_GAMELOG_test", subjects=["paiju.gamelog.test.>"])
        ack = await js.publish("paiju.gamelog.test.g1", b"created")
        assert ack.seq == 1
        kv = await js.create_key_value(api.KeyValueConfig(bucket="paiju_table_leases_test",
                                                          ttl=30, history=1))
        await kv.create("g1", b"table-0")
        assert (await kv.get("g1")).value == b"table-0"
        sub = await js.subscribe("paiju.gamelog.test.g1", stream="PAIJU_GAMELOG_test",
                                 ordered_consumer=True)
        assert (await sub.next_msg(timeout=5)).data == b"created"
    finally:
        await nc.close()


async def test_the_lobby_reads_the_table_registry_and_nothing_else(server: NatsServer) -> None:
    """A table instance announces itself (services/table/adapters/instance_registry.py); the
    lobby's user reads the entry (paiju/runtime/table_instances.py) but cannot
    write it, nor read the game log or the leases."""
    table = await as_service(server, "table")
    lobby = await as_service(server, "lobby")
    try:
        reg = Registration(table, "table-0", "table-0.table:50052", "p1", interval=10)
        await reg.put(3, True)
        js = table.jetstream(timeout=5)
        await js.add_stream(name="paiju_gamelog_p1", subjects=["paiju.gamelog.p1.>"])
        await js.publish("paiju.gamelog.p1.g1", b"created")
        found = await TableInstances(lobby, timeout=2).refresh()
        assert found["table-0.table:50052"]["games"] == 3
        assert found["table-0.table:50052"]["pool"] == "p1"
        ljs = lobby.jetstream(timeout=2)
        with pytest.raises((nats.errors.NoRespondersError, nats.errors.TimeoutError,
                            nats.js.errors.Error)):
            await ljs.publish("$KV.paiju_table_instances.table-0", b"{}", timeout=2)
        with pytest.raises((nats.errors.NoRespondersError, nats.errors.TimeoutError,
                            nats.js.errors.Error)):
            await ljs.get_last_msg("paiju_gamelog_p1", "paiju.gamelog.p1.g1")
    finally:
        await lobby.close()
        await table.close()


async def test_other_services_have_no_jetstream(server: NatsServer) -> None:
    nc = await as_service(server, "gateway")
    try:
        with pytest.raises((nats.errors.NoRespondersError, nats.errors.TimeoutError)):
            await nc.request("$JS.API.INFO", b"", timeout=2)
    finally:
        await nc.close()


def test_every_subject_of_paiju_subjects_has_a_publisher_and_the_gateway_reads_it() -> None:
    """A subject added to paiju.runtime.subjects without a place in the table fails here."""
    import inspect

    kinds = {"lobby_rooms": "rooms", "lobby_private_room": "private", "table_events": "table",
             "player_events": "player", "player_control": "control", "presence": "presence",
             "chat": "chat", "ai_seat": "ai_seat"}
    made = {name for name, f in inspect.getmembers(subjects, inspect.isfunction)
            if f.__module__ == subjects.__name__}
    # own_presence is the pattern of a gateway user's permission, not a subject
    assert made - {"own_presence"} == set(kinds), \
        "a new subject needs its row in MAY_PUBLISH/MAY_SUBSCRIBE"
    for name, kind in kinds.items():
        if kind == "presence":  # a gateway id is <its user>.<process>
            subject = subjects.presence("gateway.p1")
            assert subject == SUBJECTS[kind]
            continue
        if kind == "ai_seat":  # per game; asked by the lobby only
            subject = subjects.ai_seat("doudizhu")
            assert subject == SUBJECTS[kind]
            publishers = {s for s in natsauth.SERVICES
                          if natsauth.permitted(natsauth.allowed_publish(s), subject)}
            assert publishers == {"lobby"}
            continue
        if kind == "private":  # a private room's: its server and its room
            subject = subjects.lobby_private_room("s1", "s1-x0123456789ab")
            assert subject == SUBJECTS[kind]
            publishers = {s for s in natsauth.SERVICES
                          if natsauth.permitted(natsauth.allowed_publish(s), subject)}
            assert publishers == {"lobby"}
            continue
        subject = getattr(subjects, name)("x1")
        assert subject == SUBJECTS[kind].replace(SUBJECTS[kind].split(".")[2], "x1")
        publishers = {s for s in natsauth.SERVICES
                      if natsauth.permitted(natsauth.allowed_publish(s), subject)}
        assert publishers == {s for s, kinds_ in MAY_PUBLISH.items() if kind in kinds_}


def test_a_service_outside_development_mode_refuses_to_start_without_credentials(
        tmp_path: Path) -> None:
    env = service_env(DATA_DIR=str(tmp_path), GRPC_PORT="0", METRICS_PORT="0")
    out = subprocess.run([sys.executable, "-m", "paiju.cli", "lobby"], env=env, cwd=REPO,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2, out.stderr
    assert out.stderr.startswith("paiju lobby: PAIJU_NATS_NKEY_SEED_FILE is unset"), out.stderr


def test_a_seed_file_without_a_seed_is_a_bad_setting(tmp_path: Path) -> None:
    bad = tmp_path / "seed"
    bad.write_text("SUNOTASEED\n")
    with pytest.raises(ValueError, match=r"PAIJU_NATS_NKEY_SEED_FILE=.*seed"):
        load("table", {"PAIJU_NATS_NKEY_SEED_FILE": str(bad)})


def test_nats_config_makes_private_seeds_kept_until_rotated(tmp_path: Path) -> None:
    def run(*args: str) -> None:
        subprocess.run([sys.executable, "-m", "paiju.cli", "nats-config", str(tmp_path), *args],
                       cwd=REPO, check=True, capture_output=True, timeout=60)

    def read() -> dict[str, str]:
        return {u: nkey_seeds.read_seed(natsauth.seed_path(tmp_path, u)) for u in users}

    # by default a user per gateway pod, gateway-0 … gateway-9 (the autoscaler's maximum)
    users = ("lobby", "table", "ledger", *(f"gateway-{k}" for k in range(10)))
    run()
    seeds = read()
    for user in users:
        assert stat.S_IMODE(os.stat(natsauth.seed_path(tmp_path, user)).st_mode) == 0o600, user
    assert not natsauth.seed_path(tmp_path, "gateway").exists()
    conf = (tmp_path / natsauth.AUTH_CONF).read_text()
    for seed in seeds.values():
        assert nkey_seeds.public_key(seed) in conf and seed not in conf
    assert len(set(seeds.values())) == len(users)
    assert '"paiju.presence.gateway-7.*"' in conf and '"paiju.presence.*"' not in conf
    run()
    assert read() == seeds
    run("--rotate", "gateway-3")
    after = read()
    assert after["gateway-3"] != seeds["gateway-3"]
    assert {u: v for u, v in after.items() if u != "gateway-3"} == \
        {u: v for u, v in seeds.items() if u != "gateway-3"}
    conf = (tmp_path / natsauth.AUTH_CONF).read_text()
    assert nkey_seeds.public_key(after["gateway-3"]) in conf
    assert nkey_seeds.public_key(seeds["gateway-3"]) not in conf
    run("--gateways", "2")  # the server knows gateway-0 and gateway-1 only
    conf = (tmp_path / natsauth.AUTH_CONF).read_text()
    assert nkey_seeds.public_key(after["gateway-1"]) in conf
    assert nkey_seeds.public_key(after["gateway-2"]) not in conf


async def test_paiju_up_runs_its_nats_with_the_services_users(tmp_path: Path) -> None:
    env = {"PAIJU_DATA_DIR": str(tmp_path), "PAIJU_UP_NATS_PORT": str(free_port())}
    up = Platform(plan(env), out=lambda s: None)
    await asyncio.to_thread(up.start_nats)
    try:
        with pytest.raises(nats.errors.Error, match="Authorization Violation"):
            await nats.connect(up.nats_url, allow_reconnect=False, connect_timeout=3)
        seed = natsauth.seed_env(up.nats_creds, "gateway")["PAIJU_NATS_NKEY_SEED_FILE"]
        assert Path(seed).parent == tmp_path / "nats"
        nc = await nats.connect(up.nats_url, allow_reconnect=False, connect_timeout=3,
                                nkeys_seed_str=nkey_seeds.read_seed(Path(seed)))
        await nc.close()
    finally:
        await asyncio.to_thread(up.stop)


def test_operations_md_shows_the_permission_table() -> None:
    text = (REPO / "docs" / "operations.md").read_text(encoding="utf-8")
    assert natsauth.markdown() in text, "run python -m paiju.security.natsauth docs/operations.md"


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def make_ca_and_certs(folder: Path) -> None:
    """A test CA and, signed by it, a server certificate for 127.0.0.1 and a
    client certificate (openssl; EC P-256, one day)."""
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    _openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "1",
             "-subj", "/CN=paiju test CA", cwd=folder)
    for name, ext in (("server", "subjectAltName=IP:127.0.0.1"),
                      ("client", "extendedKeyUsage=clientAuth")):
        (folder / f"{name}.ext").write_text(ext + "\n")
        _openssl("req", *ec, "-keyout", f"{name}.key", "-out", f"{name}.csr",
                 "-subj", f"/CN={name}", cwd=folder)
        _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                 "-CAcreateserial", "-out", f"{name}.pem", "-days", "1",
                 "-extfile", f"{name}.ext", cwd=folder)


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl makes the test CA")
async def test_a_service_reaches_nats_over_mutual_tls(tmp_path: Path) -> None:
    make_ca_and_certs(tmp_path)
    server = NatsServer(auth=True)
    assert server.creds is not None
    with (server.creds / natsauth.AUTH_CONF).open("a") as conf:
        conf.write(f'tls {{cert_file: "{tmp_path / "server.pem"}", '
                   f'key_file: "{tmp_path / "server.key"}", '
                   f'ca_file: "{tmp_path / "ca.pem"}", verify: true}}\n')
    server.start()
    try:
        config = load("ledger").model_copy(update={
            "nats_nkey_seed_file": server.seed_file("ledger"), "nats_tls_ca": tmp_path / "ca.pem",
            "nats_tls_cert": tmp_path / "client.pem", "nats_tls_key": tmp_path / "client.key"})
        url = f"tls://127.0.0.1:{server.port}"
        nc = await natsconn.connect(url, None, "test-ledger", 10,
                                    auth=natsauth.client_options(config))
        assert nc.is_connected
        await nc.close()
        without_cert = config.model_copy(update={"nats_tls_cert": None, "nats_tls_key": None})
        with pytest.raises((nats.errors.Error, OSError, TimeoutError)):
            await nats.connect(url, allow_reconnect=False, connect_timeout=3,
                               **natsauth.client_options(without_cert))
    finally:
        server.close()
