"""``paiju ai``: AI players that sit and play through a gateway as clients.

Each AI signs in (with an AI token of ``PAIJU_AI_TOKEN_SECRET``, :func:`ai_token`,
else by development-mode ``login``) under a name that says what it is
(``机器人1``, ``机器人2`` …: ``--prefix`` and its number), sits at a seat of
an idle room of the given game (on ``--server``, or the game's cheapest coin
server), presses start and plays like the bots (:class:`~paiju.tools.bots.Bot`:
reconnects with jittered backoff, honours a ``busy`` refusal's
``retry_after_ms``, never leaves a game it plays). On each of its turns, and
in a declaring window (叫主) when it has something to declare, it asks the
gateway for its seat's decision inputs (``seat_view``), lets the game's AI
(:func:`paiju.rules.ai.make_player` at ``level``) choose, waits its think time
and acts. The AI sees only what its seat sees.

With ``--pool`` (:class:`AiPool`) the AIs wait instead, unseated, for the
lobby's requests over NATS (``paiju.ai.seat.<game>``, queue group
``paiju-ai``: one worker answers each): a worker with a free AI of the game
answers ``{ok: true, name}`` and that AI sits at the room's seat and presses
start (:class:`PracticeAi`); it plays game after game while a player who is
not an AI sits in the room, and once none does (between games) it stands up
and is free again. A worker without a free AI answers ``{ok: false}``.

Metrics (optional, its own ``/metrics`` port): ``paiju_ai_decisions_total{game}``
and ``paiju_ai_decision_seconds{game}`` (the ``seat_view`` call and the
choice, per decision), ``paiju_ai_pool_requests_total{game,result}`` (seat
requests answered: ``seated``, ``none_free``, ``bad_request``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import random
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any

import jwt
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from prometheus_client import Counter, Histogram

from paiju.rules.ai import Player, SeatView, levels, make_player
from paiju.rules.engine import Action
from paiju.runtime import natsconn, subjects
from paiju.tools.botclient import BotError, Client
from paiju.tools.bots import SEATS, Bot, Stats

log = logging.getLogger("paiju.ai")

DECISIONS = Counter("paiju_ai_decisions_total", "Decisions the AI players made", ["game"])
DECISION_SECONDS = Histogram(
    "paiju_ai_decision_seconds", "One AI decision: its seat_view call and the choice",
    ["game"], buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0))
POOL_REQUESTS = Counter("paiju_ai_pool_requests_total",
                        "Seat requests of the lobby a pool worker answered, by result",
                        ["game", "result"])

#: The level asked for when none is given; a game without it plays ``random``.
DEFAULT_LEVEL = "normal"
#: Seconds an AI thinks per decision by default (uniform between the two).
DEFAULT_THINK = (1.0, 3.0)


def level_of(game: str, level: str) -> str:
    """``level`` where ``game`` has it; ``random`` (every game's) where the
    game has no ``normal`` and that was asked for. ``KeyError`` for an
    unknown game or another missing level."""
    have = levels(game)
    if level in have:
        return level
    if level == DEFAULT_LEVEL:
        return "random"
    raise KeyError(f"{game} has no AI level {level!r} (it has {', '.join(sorted(have))})")


def seat_view_of(game: str, seat: int, reply: dict[str, Any]) -> SeatView:
    """The :class:`~paiju.rules.ai.SeatView` of a ``seat_view`` reply
    (``view``, ``legal`` and ``history`` as record actions; ``options`` the
    room's game options)."""
    view = reply["view"]
    return SeatView(game, dict(reply.get("options") or {}), seat, view,
                    tuple(Action.from_json(a) for a in reply["legal"]),
                    tuple(Action.from_json(a) for a in reply["history"]))


def as_command(action: Action) -> dict[str, Any]:
    """``action`` as the ``act`` command sends it (``{type, cards?}``)."""
    return {"type": action.type, "cards": list(action.cards)} if action.cards \
        else {"type": action.type}


#: Lifetime of the AI tokens ``paiju ai`` makes (seconds): each session's
#: sign-in gets a fresh one.
AI_TOKEN_SECONDS = 3600


def ai_player_id(name: str) -> str:
    """The player id of the AI named ``name``: ``ai-`` and 24 hex digits of
    the SHA-256 of the name (the ids an AI token may name)."""
    return "ai-" + hashlib.sha256(name.encode()).hexdigest()[:24]


def ai_token(secret: str, name: str, now: float | None = None) -> str:
    """An AI token (JWT HS256 signed with the first key of ``secret``,
    ``PAIJU_AI_TOKEN_SECRET``) for the AI named ``name``: claims ``sub``
    (:func:`ai_player_id`), ``name``, ``ai: true``, ``iat`` and ``exp``
    (:data:`AI_TOKEN_SECONDS` later; ``now`` in unix s)."""
    issued = int(time.time() if now is None else now)
    key = next(k.strip() for k in secret.split(",") if k.strip())
    claims = {"sub": ai_player_id(name), "name": name, "ai": True, "iat": issued,
              "exp": issued + AI_TOKEN_SECONDS}
    return jwt.encode(claims, key, algorithm="HS256")


class AiBot(Bot):
    """A :class:`~paiju.tools.bots.Bot` whose choices are the game's AI's at
    ``level``, from its seat's ``seat_view``. ``on_seat_view`` (optional) gets
    each reply (tests keep them). It signs in as an AI player: with
    ``token_secret`` (``PAIJU_AI_TOKEN_SECRET``) by ``auth`` with a fresh
    :func:`ai_token` each session, else by development ``login`` with ``ai:
    true``; either way its seats are marked ``ai``."""

    ai = True

    def __init__(self, *args: Any, level: str = DEFAULT_LEVEL,
                 on_seat_view: Callable[[dict[str, Any]], None] | None = None,
                 token_secret: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.level = level_of(self.game, level)
        self.on_seat_view = on_seat_view
        self.token_secret = token_secret
        #: one AI player a game (a deal and its redeals: a new one each deal)
        self.players: dict[str, Player] = {}

    async def _session(self) -> None:
        if self.token_secret:
            self.token = ai_token(self.token_secret, self.name)
        await super()._session()

    def _player(self, game_id: str) -> Player:
        found = self.players.get(game_id)
        if found is None:
            self.players.clear()
            found = self.players[game_id] = make_player(
                self.game, self.level, random.Random(self.rng.random()))
        return found

    async def _choose(self, turn: dict[str, Any]) -> dict[str, Any] | None:
        """The AI's action for ``turn``: in a declaring window its declaration
        (``None`` when it has nothing to declare or waits), else its play."""
        if turn.get("phase") == "declaring" and not turn.get("declare_options"):
            return None
        started = time.perf_counter()
        reply = await self._try("seat_view")
        if reply is None:
            return None
        if self.on_seat_view is not None:
            self.on_seat_view(reply)
        sv = seat_view_of(self.game, self.seat, reply)
        if not sv.legal:
            return None
        player = self._player(str(sv.view.get("game_id") or self.game_id))
        # A level may think for a while (Monte Carlo): off the event loop, so
        # that the other AIs of the worker keep reading their events.
        action = await asyncio.to_thread(player.decide if sv.my_turn else player.declare, sv)
        DECISIONS.labels(self.game).inc()
        DECISION_SECONDS.labels(self.game).observe(time.perf_counter() - started)
        return None if action is None else as_command(action)


async def idle_seats(url: str, game: str, server: str | None, players: int
                     ) -> list[tuple[str, int]]:
    """Seats for ``players`` AIs: (room, seat) filling idle rooms of
    ``server`` (default: every coin server of ``game`` but its practice
    servers, the cheapest first)
    seat by seat. ``SystemExit`` when there are not enough idle rooms."""
    probe = Client(url, lambda ev: None)
    await probe.connect()
    try:
        await probe.call("login", name=f"ai-probe-{secrets.token_hex(4)}")
        servers = [s for s in (await probe.call("servers"))["servers"] if s["game"] == game
                   and (s["server"] == server if server is not None
                        else not s.get("practice"))]
        if not servers:
            raise SystemExit(f"no server {server or ''} of {game}".replace("  ", " "))
        out: list[tuple[str, int]] = []
        for s in sorted(servers, key=lambda s: (s["min_coins"], s["server"])):
            seats = s["seats"] or SEATS[game]
            for r in (await probe.call("rooms", server=s["server"]))["rooms"]:
                if r["state"] == "idle":
                    out += [(r["room"], seat) for seat in range(seats)]
                if len(out) >= players:
                    return out[:players]
        raise SystemExit(f"not enough idle rooms of {game} for {players} AI players")
    finally:
        await probe.close()


async def finish_on(stop: asyncio.Event, bots: list[AiBot]) -> None:
    """When ``stop`` is set: every AI stops after the game that ends from now
    (the bots' ``until_ms``, the server's clock)."""
    await stop.wait()
    now_ms = int(time.time() * 1000)
    for b in bots:
        b.until_ms = now_ms
    log.info("stopping: each AI finishes its game first")


async def run_ai(url: str | list[str], game: str, players: int, *, level: str = DEFAULT_LEVEL,
                 server: str | None = None, games: int | None = 1,
                 think: tuple[float, float] = DEFAULT_THINK, prefix: str = "机器人",
                 seed: int | None = None, bot: Callable[..., AiBot] | None = None,
                 stop: asyncio.Event | None = None, token_secret: str = "") -> dict[str, Any]:
    """Sit ``players`` AIs (named ``prefix`` + 1, 2 …) at ``game`` and play
    ``games`` games at each table (``None``: until stopped); returns the bots'
    summary (:meth:`~paiju.tools.bots.Stats.summary`) with ``level``, the
    level played. ``bot`` makes each AI (default :class:`AiBot`; tests keep
    what theirs receive). Once ``stop`` is set, each AI plays the game it is
    in (or, between games, the next one) to its end and stops: an AI never
    leaves mid-game. ``token_secret``: the AIs sign in with AI tokens
    (:class:`AiBot`)."""
    chosen = level_of(game, level)
    if chosen != level:
        log.warning("%s has no AI level %s: playing %s", game, level, chosen)
    urls = [url] if isinstance(url, str) else list(url)
    stats = Stats()
    rng = random.Random(seed)
    start = time.perf_counter()
    bots = []
    for i, (room, seat) in enumerate(await idle_seats(urls[0], game, server, players)):
        spread = urls[i % len(urls):] + urls[:i % len(urls)]
        bots.append((bot or AiBot)(spread, f"{prefix}{i + 1}", game, room, seat,
                                   games if games is not None else 10**9, think, stats,
                                   random.Random(rng.random()), level=chosen,
                                   token_secret=token_secret))
    stopping = asyncio.create_task(finish_on(stop, bots)) if stop is not None else None
    try:
        await asyncio.gather(*(b.run() for b in bots))
    finally:
        if stopping is not None:
            stopping.cancel()
    return {**stats.summary(time.perf_counter() - start), "level": chosen}


class PracticeAi(AiBot):
    """An AI of the pool at a seat of a practice room (练习场): it sits, presses
    start, and plays game after game while a player who is not an AI sits in
    the room; when, outside a game, the room has none (or :meth:`leave` was
    called), it stands up and its :meth:`run` ends. A seat it cannot take
    (taken meanwhile, the room started) ends it too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: the room as last seen has a game running
        self.in_game = False
        #: the room as last seen has no player but AIs
        self.alone = False
        self.leaving = False

    def leave(self) -> None:
        """Stand up after the game in play (at once outside a game)."""
        self.leaving = True
        self.wake.set()

    def _saw_room(self, room: dict[str, Any]) -> None:
        version = room.get("version")
        if isinstance(version, int) and version < self.room_version:
            return
        super()._saw_room(room)
        self.in_game = bool(room.get("game_id"))
        self.alone = not any(not s.get("ai") for s in room.get("seats") or ())
        if self.alone:
            self.wake.set()

    async def _sit(self) -> None:
        try:
            reply = await self.client.call("sit", room=self.room, seat=self.seat)
        except BotError as e:
            if e.code == "already_seated":  # a reconnect: carry on from the view
                await self._refresh_view()
                return
            log.info("AI %s did not get %s seat %d: %s", self.name, self.room, self.seat, e.code)
            self.done.set()
            return
        if isinstance(reply.get("room"), dict):
            self._saw_room(reply["room"])
        self.ready_sent = False

    async def _step(self) -> None:
        if self.done.is_set():
            return
        if (self.alone or self.leaving) and not self.in_game:
            try:
                await self.client.call("stand")
            except BotError as e:
                if e.code == "room_started":  # a game began meanwhile: play it
                    self.in_game = True
                    return
            self.done.set()
            return
        await super()._step()


class AiPool:
    """``players`` AIs of ``game`` (named ``prefix`` + 1, 2 …) that the lobby
    asks for (:meth:`start`, :meth:`stop`); ``bot`` makes each seated AI
    (default :class:`PracticeAi`; tests keep what theirs receive);
    ``token_secret``: the AIs sign in with AI tokens (:class:`AiBot`);
    ``first``: the number of the first AI's name."""

    def __init__(self, url: str | list[str], game: str, players: int, *,
                 level: str = DEFAULT_LEVEL, think: tuple[float, float] = DEFAULT_THINK,
                 prefix: str = "机器人", seed: int | None = None,
                 bot: Callable[..., PracticeAi] | None = None, token_secret: str = "",
                 first: int = 1) -> None:
        self.urls = [url] if isinstance(url, str) else list(url)
        self.token_secret = token_secret
        self.game = game
        self.level = level_of(game, level)
        self.think = think
        self.rng = random.Random(seed)
        self.bot = bot or PracticeAi
        self.stats = Stats()
        #: the AIs' names not seated now, the first one asked for first
        self.free = [f"{prefix}{first + i}" for i in range(players)]
        #: the seated AIs and their runs
        self.seated: dict[asyncio.Task[None], PracticeAi] = {}
        self.nc: NATS | None = None
        self.started = time.perf_counter()

    async def start(self, nats_url: str, **options: Any) -> None:
        """Connect to NATS at ``nats_url`` (nats-py ``connect`` ``options``:
        the ``ai`` user's seed and inbox prefix) and answer the lobby's seat
        requests of the game."""
        self.nc = await natsconn.connect(nats_url, None, f"paiju-ai-{self.game}", auth=options)
        await self.nc.subscribe(subjects.ai_seat(self.game), subjects.AI_POOL,
                                cb=self._on_request)
        await self.nc.flush()
        log.info("AI pool of %s: %d AIs wait for seats", self.game, len(self.free))

    def _seat_of(self, data: bytes) -> tuple[str, int] | None:
        """(room, seat) of a request of this pool's game, or None."""
        try:
            req = json.loads(data)
        except ValueError:
            return None
        if not isinstance(req, dict) or req.get("game") != self.game:
            return None
        room, seat = req.get("room"), req.get("seat")
        if not isinstance(room, str) or not room or isinstance(seat, bool) \
                or not isinstance(seat, int) or seat < 0:
            return None
        return room, seat

    async def _on_request(self, msg: Msg) -> None:
        """Answer one seat request: ``{ok: true, name}`` and seat that AI, or
        ``{ok: false}`` (no free AI, or a request this pool cannot read)."""
        asked = self._seat_of(msg.data)
        if asked is None or not self.free:
            POOL_REQUESTS.labels(self.game, "bad_request" if asked is None
                                 else "none_free").inc()
            await msg.respond(b'{"ok": false}')
            return
        name = self.free.pop(0)
        await msg.respond(json.dumps({"ok": True, "name": name},
                                     ensure_ascii=False).encode())
        POOL_REQUESTS.labels(self.game, "seated").inc()
        room, seat = asked
        ai = self.bot(self.urls, name, self.game, room, seat, 10**9, self.think, self.stats,
                      random.Random(self.rng.random()), level=self.level,
                      token_secret=self.token_secret)
        task = asyncio.create_task(self._play(ai))
        self.seated[task] = ai
        task.add_done_callback(lambda t: self.seated.pop(t, None))

    async def _play(self, ai: PracticeAi) -> None:
        try:
            await ai.run()
        except Exception:
            log.exception("AI %s stopped at %s", ai.name, ai.room)
            self.stats.errors["ai_stopped"] += 1
        finally:
            self.free.append(ai.name)

    async def stop(self) -> dict[str, Any]:
        """Answer no more requests; every seated AI finishes the game it plays
        and stands up. Returns the AIs' summary (:meth:`Stats.summary`) with
        ``level``."""
        if self.nc is not None:
            with contextlib.suppress(Exception):
                await self.nc.drain()
        for ai in self.seated.values():
            ai.leave()
        await asyncio.gather(*self.seated, return_exceptions=True)
        return {**self.stats.summary(time.perf_counter() - self.started), "level": self.level}


async def run_pool(url: str | list[str], games: Sequence[str], players: int, nats_url: str,
                   *, nats_options: dict[str, Any] | None = None, stop: asyncio.Event,
                   prefix: str = "机器人", **kwargs: Any) -> dict[str, Any]:
    """An :class:`AiPool` of ``players`` AIs for each game of ``games``
    (``kwargs``: their options; the names numbered on from one game's pool to
    the next, so no two AIs share an account) answering the lobby until
    ``stop`` is set; returns each game's summary by game."""
    pools = [AiPool(url, game, players, prefix=prefix, first=k * players + 1, **kwargs)
             for k, game in enumerate(games)]
    for pool in pools:
        await pool.start(nats_url, **(nats_options or {}))
    await stop.wait()
    summaries = await asyncio.gather(*(pool.stop() for pool in pools))
    return dict(zip(games, summaries, strict=True))
