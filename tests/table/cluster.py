"""Table instances as real processes (``paiju table``) sharing one record
database and one NATS (JetStream) server, with a real ledger and a lobby
recorder in-process: the stage of the takeover and handover tests.

:func:`cluster_running` yields a :class:`Cluster`; a test starts instances
(:meth:`Cluster.start`), kills or pauses their processes, and plays games
through the current owner's gRPC address as a gateway would: it follows
``game_moved`` on the table's public subject and retries an action refused
with UNAVAILABLE or NOT_FOUND with the same ``client_seq`` (:meth:`Cluster.act`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import nats
from nats.aio.client import Client as NATS

from paiju.common.v1 import common_pb2
from paiju.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from paiju.lobby.v1 import lobby_pb2_grpc
from paiju.runtime.natsconn import decode
from paiju.table.v1 import table_pb2, table_pb2_grpc
from services.ledger.main import setup as ledger_setup
from services.table.adapters.store import RecordStore
from tests.fixtures import (
    NatsServer,
    as_identity,
    free_port,
    running_service,
    service_channel,
    service_env,
    start_service_process,
    wait_health,
)
from tests.table.conftest import GRANT_METADATA, LobbyRecorder

#: Seat counts of the four games.
SEATS = {"doudizhu": 3, "hunzhan": 4, "shengji": 4, "daa": 5}
#: Action types a bot takes only when nothing else is legal.
PASSES = {"pass", "no_call", "no_rob"}
#: gRPC codes after which an action is sent again (to the new owner).
RETRY_CODES = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.NOT_FOUND}


@dataclass
class Instance:
    """One ``paiju table`` process."""

    name: str
    addr: str
    proc: subprocess.Popen[bytes]
    log: Path

    def text(self) -> str:
        """Its output so far."""
        return self.log.read_text(encoding="utf-8", errors="replace")


@dataclass
class Cluster:
    """NATS, ledger, lobby recorder, the record database, table instances."""

    nats: NatsServer
    tmp: Path
    ledger_addr: str
    lobby_addr: str
    lobby: LobbyRecorder
    database_url: str
    nc: NATS
    ledger: ledger_pb2_grpc.LedgerServiceStub
    lease_seconds: float = 1.0
    instances: dict[str, Instance] = field(default_factory=dict)
    by_subject: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: (monotonic arrival time, event) of every game_moved.
    moved: list[tuple[float, dict[str, Any]]] = field(default_factory=list)
    channels: dict[str, grpc.aio.Channel] = field(default_factory=dict)
    seq: int = 0

    async def start(self, name: str, **env: str) -> Instance:
        """Start table instance ``name`` and wait until it serves."""
        port = free_port()
        log = self.tmp / f"{name}.log"
        proc = start_service_process("table", service_env(
            NATS_URL=self.nats.url, DATABASE_URL=self.database_url,
            LEDGER_ADDR=self.ledger_addr, LOBBY_ADDR=self.lobby_addr, GRPC_PORT=str(port),
            METRICS_PORT="0", INSTANCE=name, TABLE_ALLOW_FIXED_DEAL="1",
            LEASE_SECONDS=str(self.lease_seconds), DATA_DIR=str(self.tmp),
            **{"DEV_MODE": "1", **env}), log)  # DEV_MODE: no NATS credentials needed
        addr = f"127.0.0.1:{port}"
        try:
            await wait_health(addr, proc=proc)
        except RuntimeError as e:
            tail = log.read_text(encoding="utf-8", errors="replace")[-3000:]
            raise RuntimeError(f"{e}; its output ended with:\n{tail}") from e
        inst = self.instances[name] = Instance(name, addr, proc, log)
        return inst

    def signal(self, name: str, sig: int) -> None:
        """Send ``sig`` to instance ``name``'s process."""
        os.kill(self.instances[name].proc.pid, sig)

    def by_addr(self, addr: str) -> Instance:
        """The instance at ``addr``."""
        return next(i for i in self.instances.values() if i.addr == addr)

    def stub(self, addr: str) -> table_pb2_grpc.TableServiceStub:
        """A TableService stub for ``addr`` (channels kept)."""
        if addr not in self.channels:
            self.channels[addr] = service_channel(addr)
        return table_pb2_grpc.TableServiceStub(self.channels[addr])

    def public(self, room: str) -> list[dict[str, Any]]:
        """Public events of ``room`` so far, in arrival order."""
        return list(self.by_subject.get(f"paiju.table.{room}.events", []))

    def private(self, player: str) -> list[dict[str, Any]]:
        """The table's private events to ``player`` so far."""
        return [e for e in self.by_subject.get(f"paiju.player.{player}.events", [])
                if e["type"] != "balance_changed"]

    def owner(self, room: str, first: str) -> str:
        """The address the room's game runs at: the last ``game_moved``, else ``first``."""
        moves = [e for e in self.public(room) if e["type"] == "game_moved"]
        return str(moves[-1]["table_instance"]) if moves else first

    async def wait(self, pred: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
        """Wait until ``pred()`` is truthy (a deadline for a condition)."""
        deadline = time.monotonic() + timeout
        while True:
            value = pred()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            await asyncio.sleep(0.01)

    async def open(self, players: Sequence[str], coins: int = 100_000) -> None:
        """Open and fund the players' ledger accounts."""
        for p in players:
            await self.ledger.OpenAccount(ledger_pb2.OpenAccountRequest(player=p, name=p))
            await self.ledger.Grant(ledger_pb2.GrantRequest(
                player=p, coins=coins, reason="test", grant_id=f"grant-{p}"),
                metadata=GRANT_METADATA)

    async def create(self, addr: str, game: str, players: Sequence[str], *,
                     deal: dict[str, Any] | None = None, options: dict[str, Any] | None = None,
                     room: str | None = None) -> tuple[str, str]:
        """CreateGame at ``addr``; ``(room, game_id)``."""
        room = room or f"r{uuid.uuid4().hex[:10]}"
        gid = f"g{uuid.uuid4().hex[:12]}"
        await self.stub(addr).CreateGame(table_pb2.CreateGameRequest(
            game_id=gid, room=room, server="s1", game=game,
            options_json=json.dumps(options or {}), table_instance=addr,
            seats=[common_pb2.SeatPlayer(seat=i, player=p, name=p)
                   for i, p in enumerate(players)],
            terms=common_pb2.SettlementTerms(base=1, unit=1, fee_rate=0.02),
            deal_json=json.dumps(deal) if deal is not None else ""))
        return room, gid

    async def call(self, room: str, first: str, rpc: str, request: Any,
                   timeout: float = 30.0) -> Any:
        """``rpc`` at the room's owner, sent again to the new owner while the
        game moves (UNAVAILABLE, NOT_FOUND)."""
        deadline = time.monotonic() + timeout
        while True:
            addr = self.owner(room, first)
            try:
                return await getattr(self.stub(addr), rpc)(request, timeout=5)
            except grpc.aio.AioRpcError as e:
                if e.code() not in RETRY_CODES or time.monotonic() > deadline:
                    raise
            await asyncio.sleep(0.05)

    async def view(self, room: str, first: str, player: str) -> dict[str, Any]:
        """The player's view at the room's owner."""
        reply = await self.call(room, first, "GetView",
                                table_pb2.ViewRequest(room=room, player=player))
        result: dict[str, Any] = json.loads(reply.json)
        return result


async def step(cl: Cluster, room: str, first: str, players: Sequence[str],
               declared: set[str]) -> str | None:
    """One move of the bots (deterministic: the first legal action that is no
    pass; in a declaring window the lowest seat that can declares its first
    option, once per deal). Returns the action type taken, "" when the game
    waits (a declaring window), None once the game finished."""
    view = await cl.view(room, first, players[0])
    if view["phase"] == "finished":
        return None
    if view["to_act"]:
        player = players[view["to_act"][0]]
        hints = list((await cl.call(room, first, "Hints", table_pb2.ViewRequest(
            room=room, player=player))).actions)
        if not hints:
            return ""
        chosen = next((a for a in hints if a.type not in PASSES), hints[0])
        cl.seq += 1
        answer = await cl.call(room, first, "Act", table_pb2.ActRequest(
            room=room, player=player, client_seq=cl.seq, action=chosen))
        assert answer.ok, answer
        return str(chosen.type)
    if view.get("declaring_until") is not None and view["game_id"] not in declared:
        declared.add(view["game_id"])
        for player in players:
            hints = (await cl.call(room, first, "Hints", table_pb2.ViewRequest(
                room=room, player=player))).actions
            declares = [a for a in hints if a.type == "declare"]
            if declares:
                cl.seq += 1
                answer = await cl.call(room, first, "Act", table_pb2.ActRequest(
                    room=room, player=player, client_seq=cl.seq, action=declares[0]))
                assert answer.ok, answer
                return "declare"
    await asyncio.sleep(0.05)
    return ""


async def play(cl: Cluster, room: str, first: str, players: Sequence[str], *,
               until: Callable[[str], bool] = lambda kind: False,
               declared: set[str] | None = None, max_steps: int = 3000) -> bool:
    """Play until ``until(action type)`` says stop (True) or the game finished (False)."""
    declared = set() if declared is None else declared
    for _ in range(max_steps):
        kind = await step(cl, room, first, players, declared)
        if kind is None:
            return False
        if kind and until(kind):
            return True
    raise AssertionError(f"room {room} did not finish")


def finals(cl: Cluster, room: str) -> list[dict[str, Any]]:
    """The room's game_finished events other than redeals."""
    return [e for e in cl.public(room) if e["type"] == "game_finished"
            and e["reason"] != "redeal"]


def assert_no_gap(cl: Cluster, room: str, players: Sequence[str]) -> None:
    """Public and private seqs go 1, 2, 3 … per game id: no gap, no repeat."""
    by_game: dict[str, list[int]] = {}
    for e in cl.public(room):
        by_game.setdefault(e["game_id"], []).append(e["seq"])
    for gid, seqs in by_game.items():
        assert seqs == list(range(1, len(seqs) + 1)), (gid, seqs)
    for p in players:
        mine: dict[str, list[int]] = {}
        for e in cl.private(p):
            mine.setdefault(e["game_id"], []).append(e["seq"])
        for gid, seqs in mine.items():
            assert seqs == list(range(1, len(seqs) + 1)), (p, gid, seqs)


async def settlements(cl: Cluster, players: Sequence[str], game_id: str) -> list[int]:
    """How many ledger journal entries each player has for ``game_id``."""
    out = []
    for p in players:
        hist = await cl.ledger.GetHistory(ledger_pb2.GetHistoryRequest(player=p, limit=100))
        out.append(len([e for e in hist.entries if e.reference == game_id]))
    return out


async def record(cl: Cluster, game_id: str) -> dict[str, Any] | None:
    """The stored record of ``game_id`` in the shared record database."""
    store = await RecordStore.open(cl.database_url)
    try:
        return await store.get(game_id)
    finally:
        await store.close()


@contextlib.asynccontextmanager
async def cluster_running(nats_server: NatsServer, tmp: Path, lease_seconds: float = 1.0
                          ) -> AsyncIterator[Cluster]:
    """A :class:`Cluster` without table instances yet; every instance left is
    killed at the end."""
    recorder = LobbyRecorder()  # type: ignore[abstract]
    lobby_server = grpc.aio.server()
    lobby_pb2_grpc.add_LobbyServiceServicer_to_server(recorder, lobby_server)
    lobby_port = lobby_server.add_secure_port("127.0.0.1:0",  # a free port, no race
                                              as_identity("lobby").server_credentials())
    await lobby_server.start()
    nc = await nats.connect(nats_server.url)
    by_subject: dict[str, list[dict[str, Any]]] = {}
    moved: list[tuple[float, dict[str, Any]]] = []

    async def capture(msg: Any) -> None:
        event = decode(msg.data)
        by_subject.setdefault(msg.subject, []).append(event)
        if event["type"] == "game_moved":
            moved.append((time.monotonic(), event))

    await nc.subscribe("paiju.table.>", cb=capture)
    await nc.subscribe("paiju.player.>", cb=capture)
    await nc.flush()
    cl: Cluster | None = None
    try:
        async with running_service("ledger", ledger_setup, {
                "nats_url": nats_server.url,
                "database_url": f"sqlite:///{tmp / 'ledger.db'}"}) as ledger_addr, \
                service_channel(ledger_addr) as lch:
            cl = Cluster(nats_server, tmp, ledger_addr, f"127.0.0.1:{lobby_port}", recorder,
                         f"sqlite:///{tmp / 'table.db'}", nc,
                         ledger_pb2_grpc.LedgerServiceStub(lch), lease_seconds,
                         by_subject=by_subject, moved=moved)
            yield cl
    finally:
        if cl is not None:
            for inst in cl.instances.values():
                if inst.proc.poll() is None:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(inst.proc.pid, signal.SIGKILL)
                    inst.proc.wait(timeout=10)
            for ch in cl.channels.values():
                await ch.close()
        await nc.drain()
        await lobby_server.stop(None)
