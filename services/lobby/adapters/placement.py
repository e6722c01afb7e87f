"""Placing a game on a table instance (architecture.md "Scaling out").

Candidates are the instances that announced themselves in the registry
(:mod:`paiju.runtime.table_instances`) and those of ``PAIJU_TABLE_ADDRS`` (an
optional override: instances always considered), that answer ``ListGames``
and accept new games, least loaded (fewest games, counting the starts under
way in this lobby) first; ties keep the configured order, then the
registered, then those that left the registry within the last minute (their
entries expire while JetStream elects a leader). Where none does, the
registry is read again once before a start is refused (the lobby tries
again within the press's deadline). ``CreateGame`` is then tried on each
in turn.
:meth:`Tables.running_games` asks any instance (also one a started room
names that is no longer configured) which games it runs (the reconciler).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable, Sequence

import grpc

from paiju.common.v1 import common_pb2
from paiju.security.identity import Identity, secure_channel
from paiju.table.v1 import table_pb2, table_pb2_grpc
from services.lobby.domain.coin_servers import CoinServer
from services.lobby.domain.room_rules import Room

log = logging.getLogger("paiju.lobby")


#: Seconds an instance that left the registry stays a candidate (it must
#: still answer ``ListGames``): while JetStream elects a leader the instances
#: cannot renew their entries, which expire, though they run and answer.
REMEMBER_SECONDS = 60.0

#: Channel options: a restarted instance is found again within seconds (the
#: default reconnect backoff grows to two minutes).
CHANNEL_OPTIONS = (("grpc.initial_reconnect_backoff_ms", 500),
                   ("grpc.max_reconnect_backoff_ms", 5000))


class Tables:
    """Clients of the table instances at ``addrs`` as ``identity`` (mutual
    TLS); ``timeout`` seconds per call."""

    def __init__(self, addrs: Sequence[str], timeout: float = 3.0, *,
                 identity: Identity | None) -> None:
        self.identity = identity
        self.addrs = list(addrs)
        self.timeout = timeout
        self.channels: dict[str, grpc.aio.Channel] = {}
        self.stubs: dict[str, table_pb2_grpc.TableServiceStub] = {}
        #: The registered instances' addresses (set by the lobby from its
        #: :class:`~paiju.runtime.table_instances.TableInstances`).
        self.registered: Callable[[], Sequence[str]] = lambda: ()
        #: Reads the registry again now (set by the lobby): done once before
        #: a start is refused for want of an instance (one that registered
        #: since the last periodic read, e.g. just after the platform started).
        self.reread: Callable[[], Awaitable[None]] | None = None
        #: the round of ListGames out now (:meth:`candidates`), if any
        self._asking: asyncio.Future[list[tuple[int, int, str]]] | None = None
        #: starts under way whose game goes to each instance (their first
        #: candidate), until :meth:`release`: a burst of starts that share
        #: one round spreads over the instances
        self._placing: dict[str, int] = {}
        #: registered instances: when each was last seen there (monotonic s)
        self._seen: dict[str, float] = {}
        for a in self.addrs:
            self.stub(a)

    def known(self) -> list[str]:
        """The configured instances, then the registered ones not configured,
        then those registered within :data:`REMEMBER_SECONDS` that left."""
        now = time.monotonic()
        registered = [a for a in self.registered() if a not in self.addrs]
        for a in registered:
            self._seen[a] = now
        for a, at in list(self._seen.items()):
            if now - at > REMEMBER_SECONDS:
                del self._seen[a]
        left = [a for a in self._seen if a not in registered and a not in self.addrs]
        return [*self.addrs, *registered, *left]

    def stub(self, addr: str) -> table_pb2_grpc.TableServiceStub:
        """The client of the instance at ``addr`` (a channel opened on first use)."""
        stub = self.stubs.get(addr)
        if stub is None:
            channel = secure_channel(addr, self.identity, "table", options=CHANNEL_OPTIONS)
            self.channels[addr] = channel
            stub = self.stubs[addr] = table_pb2_grpc.TableServiceStub(channel)
        return stub

    async def running_games(self, addr: str) -> list[str]:
        """The game ids the instance at ``addr`` runs now (``ListGames``; a
        redealt game shows as ``<game_id>.r<n>``). Raises
        ``grpc.aio.AioRpcError`` when it does not answer."""
        reply = await self.stub(addr).ListGames(table_pb2.ListGamesRequest(),
                                                timeout=self.timeout)
        return [g.game_id for g in reply.games]

    async def _load(self, addr: str) -> int | None:
        try:
            reply = await self.stub(addr).ListGames(table_pb2.ListGamesRequest(),
                                                    timeout=self.timeout)
        except grpc.aio.AioRpcError as e:
            log.warning("table instance %s did not answer ListGames: %s", addr, e.code().name)
            return None
        return len(reply.games) if reply.accepting else None

    async def candidates(self) -> list[str]:
        """Instances that answer and accept, least loaded first. Starts that
        ask while a round of ``ListGames`` is out share its answer (each
        instance answers with every game it runs: at 500 tables, one round
        per start was a round of 500 summaries a start, 12 starts a second in
        the ramp), each adding the starts under way (the first candidate of
        each, held until :meth:`release`, which the caller must call); a
        caller cancelled leaves the round to the others."""
        asking = self._asking
        if asking is None:
            asking = self._asking = asyncio.ensure_future(self._candidates())

            def done(f: asyncio.Future[list[tuple[int, int, str]]]) -> None:
                if self._asking is f:
                    self._asking = None
            asking.add_done_callback(done)
        loads = await asyncio.shield(asking)
        ranked = [a for _, _, a in sorted((n + self._placing.get(a, 0), i, a)
                                          for n, i, a in loads)]
        if ranked:  # the caller's game goes to the first: held until release()
            self._placing[ranked[0]] = self._placing.get(ranked[0], 0) + 1
        return ranked

    def release(self, addr: str) -> None:
        """The start that :meth:`candidates` gave ``addr`` first is over (its
        game created, elsewhere or not at all): from now on the instance's
        own ``ListGames`` counts it, if it took it."""
        left = self._placing.get(addr, 0) - 1
        if left > 0:
            self._placing[addr] = left
        else:
            self._placing.pop(addr, None)

    async def _candidates(self) -> list[tuple[int, int, str]]:
        loads = await self._loads(self.known())
        if not loads and self.reread is not None:
            await self.reread()
            loads = await self._loads(self.known())
        return loads

    async def _loads(self, addrs: list[str]) -> list[tuple[int, int, str]]:
        """(games, position, address) of each of ``addrs`` that answers and accepts."""
        loads = await asyncio.gather(*(self._load(a) for a in addrs))
        return [(n, i, a) for i, (a, n) in enumerate(zip(addrs, loads, strict=True))
                if n is not None]

    async def locate(self, addr: str, game_id: str) -> table_pb2.LocateGameResponse:
        """``LocateGame`` at ``addr``: the sitting's lease holder and whether
        its log replays. Raises ``grpc.aio.AioRpcError``."""
        reply: table_pb2.LocateGameResponse = await self.stub(addr).LocateGame(
            table_pb2.LocateGameRequest(game_id=game_id), timeout=self.timeout)
        return reply

    async def create_game(self, addr: str, room: Room, server: CoinServer,
                          timeout: float | None = None) -> None:
        """``CreateGame`` for ``room``'s game on ``addr``: options are the
        server's rule options overlaid with those its opener chose (a private
        room's) and the room's carry-over, seats in seat
        order, terms base/unit/fee_rate, and ``addr`` as ``table_instance`` (the
        table repeats it in ``game_started``); a practice server's games have
        the table option ``practice`` (no coins move); waits the instance's call timeout,
        or ``timeout`` seconds where that is shorter. Raises ``grpc.aio.AioRpcError``."""
        options = {**server.options, **room.options, **room.carry}
        if server.practice:
            options["practice"] = True
        await self.stub(addr).CreateGame(table_pb2.CreateGameRequest(
            game_id=room.game_id, room=room.room, server=server.server, game=server.game,
            options_json=json.dumps(options, ensure_ascii=False, sort_keys=True),
            seats=[common_pb2.SeatPlayer(seat=s.seat, player=s.player, name=s.name)
                   for _, s in sorted(room.seats.items())],
            terms=common_pb2.SettlementTerms(base=server.base, unit=server.unit,
                                             fee_rate=server.fee_rate),
            table_instance=addr,
        ), timeout=self.timeout if timeout is None else min(self.timeout, timeout))

    async def close(self) -> None:
        """Close every channel."""
        for channel in self.channels.values():
            await channel.close()
