"""Fixtures of the table-service tests: a real NATS server (tests/conftest.py),
a real ledger (services.ledger.main.setup) on SQLite, a table instance with a
FakeClock on loopback gRPC, and a small real LobbyService on loopback that
records GameOver and GameMoved calls (a test double of the remote lobby).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import nats
import pytest
from nats.aio.client import Client as NATS

from paiju.common.v1 import common_pb2
from paiju.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from paiju.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from paiju.runtime.natsconn import decode
from paiju.table.v1 import table_pb2, table_pb2_grpc
from services.ledger.main import setup as ledger_setup
from services.table.application.clock import Clock, FakeClock
from services.table.application.runner import Table
from services.table.main import make_setup
from tests.fixtures import as_identity, running_service, service_channel, until

GRANT_METADATA = (("x-paiju-grant-key", "dev-grant-key"),)


class LobbyRecorder(lobby_pb2_grpc.LobbyServiceServicer):
    """A real gRPC LobbyService on loopback that records GameOver and GameMoved calls. With
    ``gate`` set, GameOver answers only once the gate is open."""

    def __init__(self) -> None:
        self.calls: list[lobby_pb2.GameOverRequest] = []
        self.moves: list[lobby_pb2.GameMovedRequest] = []
        self.gate: asyncio.Event | None = None

    async def GameOver(self, request: lobby_pb2.GameOverRequest,
                       context: grpc.aio.ServicerContext) -> lobby_pb2.Room:
        self.calls.append(request)
        if self.gate is not None:
            await self.gate.wait()
        return lobby_pb2.Room(room=request.room, state="waiting")

    async def GameMoved(self, request: lobby_pb2.GameMovedRequest,
                        context: grpc.aio.ServicerContext) -> lobby_pb2.Room:
        self.moves.append(request)
        return lobby_pb2.Room(room=request.room, state="started", game_id=request.game_id,
                              table_instance=request.table_instance)


@dataclass
class Harness:
    """Everything a table test talks to."""

    clock: FakeClock
    table: Table
    stub: table_pb2_grpc.TableServiceStub
    ledger: ledger_pb2_grpc.LedgerServiceStub
    lobby: LobbyRecorder
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    by_subject: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    seq: int = 0
    #: The test's own NATS connection (it captures the events; tests publish
    #: presence on it as a gateway would).
    nc: NATS | None = None

    def public(self, room: str) -> list[dict[str, Any]]:
        """Public events captured on paiju.table.<room>.events, in order."""
        return list(self.by_subject.get(f"paiju.table.{room}.events", []))

    def private(self, player: str) -> list[dict[str, Any]]:
        """Table events captured on paiju.player.<player>.events (ledger's excluded)."""
        return [e for e in self.by_subject.get(f"paiju.player.{player}.events", [])
                if e["type"] != "balance_changed"]

    async def wait(self, pred: Callable[[], Any], what: str, timeout: float = 15.0) -> Any:
        """``pred()``'s value once truthy (:func:`tests.fixtures.until`)."""
        return await until(pred, what, timeout, interval=0.005)

    async def wait_event(self, room: str, type_: str, count: int = 1,
                         timeout: float = 15.0) -> dict[str, Any]:
        """The ``count``-th public event of ``type_`` in ``room`` once it arrived."""
        def found() -> dict[str, Any] | None:
            evs = [e for e in self.public(room) if e["type"] == type_]
            return evs[count - 1] if len(evs) >= count else None
        result: dict[str, Any] = await self.wait(found, f"{type_} #{count} in {room}", timeout)
        return result

    async def open(self, players: Sequence[str], coins: int = 1000) -> None:
        """Open the players' ledger accounts and grant them ``coins`` each."""
        async def one(p: str) -> None:
            await self.ledger.OpenAccount(ledger_pb2.OpenAccountRequest(player=p, name=p))
            await self.ledger.Grant(ledger_pb2.GrantRequest(
                player=p, coins=coins, reason="test", grant_id=f"grant-{p}"),
                metadata=GRANT_METADATA)
        await asyncio.gather(*(one(p) for p in players))

    async def balance(self, player: str) -> int:
        """The player's ledger balance."""
        reply = await self.ledger.GetBalance(ledger_pb2.GetBalanceRequest(player=player))
        return int(reply.coins)

    async def create(self, game: str, players: Sequence[str], *, room: str | None = None,
                     deal: dict[str, Any] | None = None, options: dict[str, Any] | None = None,
                     game_id: str | None = None, base: int = 1, unit: int = 1,
                     fee_rate: float = 0.02) -> tuple[str, str]:
        """CreateGame; returns ``(room, game_id)``."""
        room = room or f"r{uuid.uuid4().hex[:10]}"
        game_id = game_id or f"g{uuid.uuid4().hex[:12]}"
        await self.stub.CreateGame(table_pb2.CreateGameRequest(
            game_id=game_id, room=room, server="s1", game=game,
            options_json=json.dumps(options or {}),
            seats=[common_pb2.SeatPlayer(seat=i, player=p, name=p)
                   for i, p in enumerate(players)],
            terms=common_pb2.SettlementTerms(base=base, unit=unit, fee_rate=fee_rate),
            deal_json=json.dumps(deal) if deal is not None else ""))
        return room, game_id

    async def act(self, room: str, player: str, type_: str, cards: Sequence[str] = (),
                  client_seq: int | None = None) -> table_pb2.ActResponse:
        """Act with a fresh client_seq (or the one given)."""
        if client_seq is None:
            self.seq += 1
            client_seq = self.seq
        reply: table_pb2.ActResponse = await self.stub.Act(table_pb2.ActRequest(
            room=room, player=player, client_seq=client_seq,
            action=common_pb2.Action(type=type_, cards=list(cards))))
        return reply

    async def view(self, room: str, player: str) -> dict[str, Any]:
        """GetView as a dict."""
        reply = await self.stub.GetView(table_pb2.ViewRequest(room=room, player=player))
        result: dict[str, Any] = json.loads(reply.json)
        return result


@contextlib.asynccontextmanager
async def harness_running(nats_url: str, tmp: Path, *, lobby_addr: str | None = None,
                          table_clock: Clock | None = None,
                          table_config: dict[str, Any] | None = None
                          ) -> AsyncIterator[Harness]:
    """Ledger, lobby recorder and a table instance (fixed deals allowed) on the
    harness's FakeClock, or on ``table_clock`` where given (the real clock for
    tests where the timing is the point); ``table_config`` overrides the table's
    Config fields (``presence_timeout_seconds`` …)."""
    recorder = LobbyRecorder()  # type: ignore[abstract]
    lobby_server = grpc.aio.server()
    lobby_pb2_grpc.add_LobbyServiceServicer_to_server(recorder, lobby_server)
    lobby_port = lobby_server.add_secure_port("127.0.0.1:0",  # a free port, no race
                                              as_identity("lobby").server_credentials())
    await lobby_server.start()
    clock = FakeClock()
    tables: list[Table] = []
    nc = await nats.connect(nats_url)
    events: list[tuple[str, dict[str, Any]]] = []
    by_subject: dict[str, list[dict[str, Any]]] = {}

    async def capture(msg: Any) -> None:
        event = decode(msg.data)
        events.append((msg.subject, event))
        by_subject.setdefault(msg.subject, []).append(event)

    await nc.subscribe("paiju.table.>", cb=capture)
    await nc.subscribe("paiju.player.>", cb=capture)
    await nc.flush()
    try:
        async with running_service("ledger", ledger_setup, {
            "nats_url": nats_url, "database_url": f"sqlite:///{tmp / 'ledger.db'}",
        }) as ledger_addr, running_service("table", make_setup(
            clock=table_clock or clock, tables=tables, allow_fixed_deal=True), {
            "nats_url": nats_url, "database_url": f"sqlite:///{tmp / 'table.db'}",
            "ledger_addr": ledger_addr, "lobby_addr": lobby_addr or f"127.0.0.1:{lobby_port}",
            **(table_config or {}),
        }) as table_addr, service_channel(table_addr) as tch, \
                    service_channel(ledger_addr) as lch:
            yield Harness(clock, tables[0], table_pb2_grpc.TableServiceStub(tch),
                          ledger_pb2_grpc.LedgerServiceStub(lch), recorder, events,
                          by_subject, nc=nc)
    finally:
        await nc.drain()
        await lobby_server.stop(None)


@pytest.fixture
async def harness(nats_server: str, tmp_path: Path) -> AsyncIterator[Harness]:
    """A :class:`Harness` on this session's NATS server and fresh databases."""
    async with harness_running(nats_server, tmp_path) as h:
        yield h
