"""Fixtures of the lobby tests: a real ledger, two real table instances and a
lobby, in-process on loopback, with a real NATS server and SQLite files.

The lobby and the tables get fake clocks (nothing waits for the 20 s ready
kick or a turn timer); the tables report finished games to the lobby
(``lobby_addr``), as in production. The plain ``stack`` has no gateway: its
lobby's presence warm-up (PAIJU_PRESENCE_TIMEOUT_SECONDS) is made longer than
any test, so that every player counts present (paiju.presence); the presence
tests (test_lobby_presence.py) build theirs with :func:`lobby_stack` and a real
PresencePublisher standing in for a gateway.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
import warnings
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nats
import pytest

from paiju.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from paiju.lobby.v1 import lobby_pb2_grpc
from paiju.runtime import natsconn
from services.ledger import main as ledger_main
from services.lobby import main as lobby_main
from services.lobby.application.lobby import Lobby
from services.lobby.application.presence import SeatPresence
from services.lobby.application.reconcile import ReconcileSettings
from services.lobby.domain.clock import Clock, FakeClock
from services.table import main as table_main
from services.table.application.clock import FakeClock as TableClock
from services.table.application.runner import Table
from tests.fixtures import free_port, running_service, service_channel

ROOMS_YAML = """\
defaults: {fee_rate: 0.02, ready_seconds: 20}
servers:
  - {server: dz, name: 斗地主 test, game: doudizhu, base: 10, min_coins: 100, rooms: 4,
     options: {turn_seconds: 20}}
  - {server: hz, name: 混战 test, game: hunzhan, base: 10, min_coins: 100, rooms: 1}
"""

GRANT_KEY = "test-grant-key"

#: The fixture lobby's own reconciler never runs (tests/lobby/test_reconcile.py
#: drives one pass at a time).
NO_RECONCILE = ReconcileSettings(interval_seconds=3600)


class Bank:
    """Accounts in the real ledger at ``addr``."""

    def __init__(self, addr: str) -> None:
        self.addr = addr
        self.channel = service_channel(addr)
        self.stub = ledger_pb2_grpc.LedgerServiceStub(self.channel)

    async def fund(self, player: str, coins: int) -> None:
        """Open ``player``'s account with ``coins`` coins."""
        await self.stub.OpenAccount(ledger_pb2.OpenAccountRequest(player=player, name=player))
        if coins:
            await self.stub.Grant(ledger_pb2.GrantRequest(
                player=player, coins=coins, reason="test", grant_id=uuid.uuid4().hex),
                metadata=(("x-paiju-grant-key", GRANT_KEY),))

    async def balance(self, player: str) -> int:
        """``player``'s coins."""
        return int((await self.stub.GetBalance(ledger_pb2.GetBalanceRequest(player=player)))
                   .coins)

    async def take(self, player: str, coins: int) -> None:
        """Take ``coins`` from ``player`` (a room fee charge)."""
        await self.stub.ChargeFee(ledger_pb2.ChargeFeeRequest(
            charge_id=uuid.uuid4().hex, players=[player], coins=coins, reason="test"))


@dataclass
class Events:
    """``room_changed`` events received on NATS, in arrival order."""

    items: list[dict[str, Any]] = field(default_factory=list)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)

    async def wait_for(self, match: Callable[[dict[str, Any]], bool],
                       timeout: float = 10.0) -> dict[str, Any]:
        """The first event that matches (a deadline for a condition, not a timer)."""
        async def look() -> dict[str, Any]:
            seen = 0
            while True:
                for e in self.items[seen:]:
                    if match(e):
                        return e
                seen = len(self.items)
                self.arrived.clear()
                await self.arrived.wait()
        return await asyncio.wait_for(look(), timeout)


@dataclass
class Stack:
    """A running lobby with its ledger, two table instances and NATS."""

    lobby_addr: str
    lobby: Lobby
    clock: FakeClock
    stub: lobby_pb2_grpc.LobbyServiceStub
    bank: Bank
    table_addrs: list[str]
    tables: list[Table]
    table_clock: TableClock
    events: Events
    nats_url: str
    database_url: str
    presence: SeatPresence

    def table_at(self, addr: str) -> Table:
        """The in-process table instance serving ``addr``."""
        return self.tables[self.table_addrs.index(addr)]


@contextlib.asynccontextmanager
async def ledger_service(nats_url: str, tmp: Path) -> AsyncIterator[str]:
    """A real ledger on loopback (its own SQLite file)."""
    async with running_service("ledger", ledger_main.setup, {
            "nats_url": nats_url, "database_url": f"sqlite:///{tmp / 'ledger.db'}",
            "grant_key": GRANT_KEY}) as addr:
        yield addr


@pytest.fixture
def rooms_file(tmp_path: Path) -> Path:
    """The test rooms file (servers dz: doudizhu, 4 rooms; hz: hunzhan, 1 room)."""
    path = tmp_path / "rooms.yaml"
    path.write_text(ROOMS_YAML, encoding="utf-8")
    return path


@pytest.fixture
async def stack(nats_server: str, tmp_path: Path, rooms_file: Path) -> AsyncIterator[Stack]:
    """Ledger, two tables (lobby_addr set), the lobby, and a NATS subscriber of
    ``paiju.lobby.dz.rooms`` (fake clocks; everyone counts present)."""
    async with lobby_stack(nats_server, tmp_path, rooms_file) as s:
        yield s


@contextlib.asynccontextmanager
async def lobby_stack(nats_server: str, tmp_path: Path, rooms_file: Path, *,
                      clock: Clock | None = None, interval: float = 3600,
                      presence_timeout_seconds: float = 3600,
                      table_config: dict[str, Any] | None = None) -> AsyncIterator[Stack]:
    """The ``stack`` with a given lobby ``clock`` (default a FakeClock, which
    ``Stack.clock`` then is), background pass ``interval`` (seconds) and
    presence timeout (also its warm-up); ``table_config``: more settings of
    both table instances (:class:`paiju.config.Config` fields). The lobby's
    port is chosen before the tables start (they must know it), so another
    socket may take it in between (an outgoing connection's ephemeral port):
    such a start is tried again on a new port, with new databases."""
    for attempt in range(1, STACK_ATTEMPTS + 1):
        async with contextlib.AsyncExitStack() as es:
            try:
                made = await start_stack(es, nats_server, tmp_path, rooms_file, clock=clock,
                                         interval=interval,
                                         presence_timeout_seconds=presence_timeout_seconds,
                                         table_config=table_config)
            except RuntimeError as e:
                if "cannot bind" not in str(e) or attempt == STACK_ATTEMPTS:
                    raise
                warnings.warn(f"lobby stack start {attempt} lost a port race ({e}); trying "
                              "again on a new port", stacklevel=1)
            else:
                yield made
                return
        for db_file in tmp_path.glob("*.db*"):
            db_file.unlink()


async def clients(es: contextlib.AsyncExitStack, nats_server: str, lobby_addr: str,
                  ledger_addr: str) -> tuple[Events, lobby_pb2_grpc.LobbyServiceStub, Bank]:
    """What a test talks to the lobby and the ledger with (closed by ``es``):
    the ``room_changed`` events of server dz as they arrive, a lobby stub and
    the bank's ledger client."""
    events = Events()
    nc = await nats.connect(nats_server)
    es.push_async_callback(nc.close)

    async def on_event(msg: Any) -> None:
        events.items.append(natsconn.decode(msg.data))
        events.arrived.set()

    await nc.subscribe("paiju.lobby.dz.rooms", cb=on_event)
    await nc.flush()
    channel = service_channel(lobby_addr)
    es.push_async_callback(channel.close)
    bank = Bank(ledger_addr)
    es.push_async_callback(bank.channel.close)
    return events, lobby_pb2_grpc.LobbyServiceStub(channel), bank


#: Starts of a lobby stack tried before a port race is a failure.
STACK_ATTEMPTS = 3


async def start_stack(es: contextlib.AsyncExitStack, nats_server: str, tmp_path: Path,
                      rooms_file: Path, *, clock: Clock | None, interval: float,
                      presence_timeout_seconds: float,
                      table_config: dict[str, Any] | None) -> Stack:
    """Start a :func:`lobby_stack` (stopped by ``es``). ``RuntimeError``
    (``cannot bind``) where the lobby's port was taken."""
    lobby_port = free_port()
    lobby_addr = f"127.0.0.1:{lobby_port}"
    table_clock = TableClock()
    fake = FakeClock()
    tables: list[Table] = []
    lobbies: list[Lobby] = []
    presences: list[SeatPresence] = []
    ledger_addr = await es.enter_async_context(ledger_service(nats_server, tmp_path))
    table_addrs = []
    for i in range(2):
        addr = await es.enter_async_context(running_service(
            "table", table_main.make_setup(clock=table_clock, tables=tables), {
                "nats_url": nats_server, "ledger_addr": ledger_addr,
                "lobby_addr": lobby_addr,
                "database_url": f"sqlite:///{tmp_path / f'table{i}.db'}",
                **(table_config or {})}))
        table_addrs.append(addr)
    database_url = f"sqlite:///{tmp_path / 'lobby.db'}"
    await es.enter_async_context(running_service(
        "lobby", lobby_main.make_setup(clock=clock or fake, interval=interval,
                                       lobbies=lobbies, reconcile=NO_RECONCILE,
                                       presences=presences), {
            "grpc_port": lobby_port, "nats_url": nats_server, "ledger_addr": ledger_addr,
            "table_addrs": tuple(table_addrs), "database_url": database_url,
            "rooms_file": str(rooms_file), "instance": "lobby-test",
            "presence_timeout_seconds": presence_timeout_seconds}))
    events, stub, bank = await clients(es, nats_server, lobby_addr, ledger_addr)
    return Stack(lobby_addr, lobbies[0], fake, stub,
                 bank, table_addrs, tables, table_clock, events, nats_server,
                 database_url, presences[0])
