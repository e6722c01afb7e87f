"""Several lobby processes over one database, and a lobby killed and restarted.

Real lobby subprocesses (``paiju lobby``), a real ledger and table instance
in-process, a real NATS server; SQLite (the default) and PostgreSQL (skipped
where it cannot be reached; each test gets a database of its own).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import subprocess
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import grpc
import pytest
from sqlalchemy import select

from paiju.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from paiju.runtime import db
from services.lobby.adapters.store import seats_table
from services.lobby.domain.coin_servers import parse
from services.lobby.domain.errors import reason_of
from services.table import main as table_main
from services.table.application.clock import FakeClock as TableClock
from tests.fixtures import (
    free_port,
    running_service,
    service_channel,
    service_env,
    start_service_process,
    stop_process,
    wait_health,
)
from tests.ledger.conftest import postgres_database
from tests.lobby.conftest import Bank, ledger_service

RACE_YAML = """\
servers:
  - {server: race, game: doudizhu, base: 10, min_coins: 100, rooms: 4}
  - {server: hz, game: hunzhan, base: 10, min_coins: 100, rooms: 2}
  - {server: wide, game: doudizhu, base: 10, min_coins: 100, rooms: 100}
"""
CLIENTS = 100


class LobbyProcess:
    """``paiju lobby`` as a subprocess on a fixed port (restartable)."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.port = free_port()
        self.env = {**env, "PAIJU_GRPC_PORT": str(self.port),
                    "PAIJU_INSTANCE": f"lobby-{self.port}"}
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def addr(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def start(self) -> None:
        self.proc = start_service_process("lobby", self.env, self.log)
        await wait_health(self.addr, timeout=60)

    def kill(self) -> None:
        """SIGKILL: no graceful stop at all."""
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            stop_process(self.proc)


@contextlib.asynccontextmanager
async def platform(nats_url: str, tmp: Path, database_url: str
                   ) -> AsyncIterator[tuple[Bank, str, dict[str, str]]]:
    """A ledger and a table instance in-process; the env of a lobby process."""
    rooms_file = tmp / "rooms.yaml"
    rooms_file.write_text(RACE_YAML, encoding="utf-8")
    async with contextlib.AsyncExitStack() as es:
        ledger_addr = await es.enter_async_context(ledger_service(nats_url, tmp))
        table_addr = await es.enter_async_context(running_service(
            "table", table_main.make_setup(clock=TableClock()), {
                "nats_url": nats_url, "ledger_addr": ledger_addr, "lobby_addr": "",
                "database_url": f"sqlite:///{tmp / 'table.db'}"}))
        env = service_env(NATS_URL=nats_url, DATABASE_URL=database_url,
                          LEDGER_ADDR=ledger_addr, TABLE_ADDRS=table_addr,
                          ROOMS_FILE=str(rooms_file), METRICS_PORT="0",
                          LOG_LEVEL="WARNING", DATA_DIR=str(tmp / "data"),
                          # No gateway here: a warm-up longer than the test
                          # counts every player present (paiju.presence).
                          PRESENCE_TIMEOUT_SECONDS="3600",
                          DEV_MODE="1")  # no NATS credentials needed
        bank = Bank(ledger_addr)
        es.push_async_callback(bank.channel.close)
        yield bank, table_addr, env


@pytest.fixture
def fresh_postgres(postgres_url: str) -> Iterator[str]:
    """A new, empty PostgreSQL database for this test (dropped afterwards)."""
    with postgres_database(postgres_url, "paiju_lobby_test") as url:
        yield url


async def rush(stubs: list[lobby_pb2_grpc.LobbyServiceStub], players: list[str],
               choices: list[tuple[str, int]], rng: random.Random
               ) -> tuple[list[tuple[str, str, int]], Counter[str]]:
    """Every player tries two seats of two different rooms at once, one through
    each lobby; returns the successful (player, room, seat) and the refusals."""
    wins: list[tuple[str, str, int]] = []
    refusals: Counter[str] = Counter()

    async def attempt(stub: lobby_pb2_grpc.LobbyServiceStub, player: str, room: str,
                      seat: int) -> None:
        try:
            reply = await stub.Sit(lobby_pb2.SitRequest(
                player=player, name=player, room=room, seat=seat), timeout=60)
        except grpc.aio.AioRpcError as e:
            refusals[reason_of(e)] += 1
            return
        assert any(s.seat == seat and s.player == player for s in reply.seats)
        wins.append((player, room, seat))

    calls = []
    for p in players:
        first = rng.choice(choices)
        second = rng.choice([x for x in choices if x[0] != first[0]])
        calls.append(attempt(stubs[0], p, *first))
        calls.append(attempt(stubs[1], p, *second))
    await asyncio.gather(*calls)
    return wins, refusals


async def check_state(stubs: list[lobby_pb2_grpc.LobbyServiceStub], database_url: str,
                      server: str, expected: set[tuple[str, int, str]]) -> None:
    """Both lobbies' ListRooms and the database rows of ``server`` hold exactly
    ``expected`` (room, seat, player)."""
    for stub in stubs:
        rooms = (await stub.ListRooms(lobby_pb2.ListRoomsRequest(server=server),
                                      timeout=60)).rooms
        assert {(room.room, st.seat, st.player) for room in rooms for st in room.seats} \
            == expected
    engine = db.make_engine(database_url)
    try:
        async with engine.connect() as conn:
            rows = (await conn.execute(select(
                seats_table.c.room, seats_table.c.seat, seats_table.c.player)
                .where(seats_table.c.room.like(f"{server}-%")))).all()
    finally:
        await engine.dispose()
    assert {(r, s, p) for r, s, p in rows} == expected


async def race(nats_url: str, tmp: Path, database_url: str) -> None:
    """100 clients race through two lobby processes (nobody stands up, so a
    seat may be given at most once and a player may sit at most once):

    1. for the 12 seats of server ``race``: many clients per seat;
    2. for the 300 seats of server ``wide``: each client's two tries usually
       find free seats, so the lobbies must refuse the second one.
    """
    async with platform(nats_url, tmp, database_url) as (bank, _table, env):
        lobbies = [LobbyProcess(env, tmp / f"lobby{i}.log") for i in range(2)]
        channels = []
        try:
            for lp in lobbies:  # one after the other: the first one migrates
                await lp.start()
            config = parse(RACE_YAML)
            channels = [service_channel(lp.addr) for lp in lobbies]
            stubs = [lobby_pb2_grpc.LobbyServiceStub(c) for c in channels]
            rng = random.Random(8)
            for phase, server_id in enumerate(("race", "wide")):
                players = [f"racer{phase}-{i:03d}" for i in range(CLIENTS)]
                await asyncio.gather(*(bank.fund(p, 1000) for p in players))
                server = config.server(server_id)
                assert server is not None
                choices = [(r, s) for r in server.room_ids() for s in range(server.seats)]
                wins, refusals = await rush(stubs, players, choices, rng)
                print(f"{server_id}: {len(wins)} seats given, refusals {dict(refusals)}")
                assert max(Counter((r, s) for _, r, s in wins).values()) == 1
                assert max(Counter(p for p, _, _ in wins).values()) == 1
                assert len(wins) + sum(refusals.values()) == 2 * CLIENTS
                assert set(refusals) <= {"seat_taken", "already_seated"}, refusals
                # There was a race: for seats in phase 1, for players in phase 2.
                assert refusals["seat_taken" if phase == 0 else "already_seated"] > 0
                await check_state(stubs, database_url, server_id,
                                  {(r, s, p) for p, r, s in wins})
        finally:
            for c in channels:
                await c.close()
            for lp in lobbies:  # in a thread: the in-process services keep running
                await asyncio.to_thread(lp.stop)


async def test_two_lobbies_100_clients_sqlite(nats_server: str, tmp_path: Path) -> None:
    await race(nats_server, tmp_path, f"sqlite:///{tmp_path / 'lobby.db'}")


@pytest.mark.postgres
async def test_two_lobbies_100_clients_postgres(nats_server: str, tmp_path: Path,
                                                fresh_postgres: str) -> None:
    await race(nats_server, tmp_path, fresh_postgres)


async def restart(nats_url: str, tmp: Path, database_url: str) -> None:
    """Seats, ready flags and a started game survive a SIGKILL of the lobby."""
    async with platform(nats_url, tmp, database_url) as (bank, table_addr, env):
        lp = LobbyProcess(env, tmp / "lobby.log")
        await lp.start()
        try:
            players = ["a1", "a2", "a3", "b1", "b2", "c1", "c2", "c3", "c4"]
            await asyncio.gather(*(bank.fund(p, 1000) for p in players))
            async with service_channel(lp.addr) as ch:
                stub = lobby_pb2_grpc.LobbyServiceStub(ch)
                for i, p in enumerate(["a1", "a2", "a3"]):
                    await stub.Sit(lobby_pb2.SitRequest(player=p, name=p, room="race-01",
                                                        seat=i))
                for p in ["a1", "a2", "a3"]:
                    started = await stub.Ready(lobby_pb2.PlayerRequest(player=p))
                assert started.state == "started" and started.table_instance == table_addr
                await stub.Sit(lobby_pb2.SitRequest(player="b1", name="b1", room="race-03",
                                                    seat=2))
                await stub.Sit(lobby_pb2.SitRequest(player="b2", name="b2", room="race-03",
                                                    seat=0))
                await stub.Ready(lobby_pb2.PlayerRequest(player="b2"))
                for i, p in enumerate(["c1", "c2", "c3", "c4"]):
                    await stub.Sit(lobby_pb2.SitRequest(player=p, name=p, room="hz-02",
                                                        seat=i))
                before = {s: list((await stub.ListRooms(lobby_pb2.ListRoomsRequest(
                    server=s))).rooms) for s in ("race", "hz")}
            lp.kill()
            await lp.start()
            async with service_channel(lp.addr) as ch:
                stub = lobby_pb2_grpc.LobbyServiceStub(ch)
                after = {s: list((await stub.ListRooms(lobby_pb2.ListRoomsRequest(
                    server=s))).rooms) for s in ("race", "hz")}
                assert after == before
                r3 = next(r for r in after["race"] if r.room == "race-03")
                assert [(s.seat, s.player, s.ready) for s in r3.seats] == [
                    (0, "b2", True), (2, "b1", False)]
                r1 = next(r for r in after["race"] if r.room == "race-01")
                assert (r1.state, r1.game_id) == ("started", started.game_id)
                # It goes on from there: the taken seat stays taken, a free one takes.
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await stub.Sit(lobby_pb2.SitRequest(player="a1", name="a1",
                                                        room="race-03", seat=1))
                assert reason_of(refused.value) == "already_seated"
                await bank.fund("d1", 1000)
                got = await stub.Sit(lobby_pb2.SitRequest(player="d1", name="d1",
                                                          room="race-03", seat=1))
                assert [s.player for s in got.seats] == ["b2", "d1", "b1"]
        finally:
            lp.stop()


async def test_lobby_killed_and_restarted_keeps_seats_sqlite(nats_server: str,
                                                             tmp_path: Path) -> None:
    await restart(nats_server, tmp_path, f"sqlite:///{tmp_path / 'lobby.db'}")


@pytest.mark.postgres
async def test_lobby_killed_and_restarted_keeps_seats_postgres(
        nats_server: str, tmp_path: Path, fresh_postgres: str) -> None:
    await restart(nats_server, tmp_path, fresh_postgres)
