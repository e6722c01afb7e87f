"""``paiju ai``: AI players that sit and play through a gateway as clients.

Each AI signs in (development-mode ``login``) under a name that says what it
is (``机器人1``, ``机器人2`` …: ``--prefix`` and its number), sits at a seat of
an idle room of the given game (on ``--server``, or the game's cheapest coin
server), presses start and plays like the bots (:class:`~paiju.tools.bots.Bot`:
reconnects with jittered backoff, honours a ``busy`` refusal's
``retry_after_ms``, never leaves a game it plays). On each of its turns, and
in a declaring window (叫主) when it has something to declare, it asks the
gateway for its seat's decision inputs (``seat_view``), lets the game's AI
(:func:`paiju.rules.ai.make_player` at ``level``) choose, waits its think time
and acts. The AI sees only what its seat sees.

Metrics (optional, its own ``/metrics`` port): ``paiju_ai_decisions_total{game}``
and ``paiju_ai_decision_seconds{game}`` (the ``seat_view`` call and the
choice, per decision).
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections.abc import Callable
from typing import Any

from prometheus_client import Counter, Histogram

from paiju.rules.ai import Player, SeatView, levels, make_player
from paiju.rules.engine import Action
from paiju.tools.botclient import Client
from paiju.tools.bots import SEATS, Bot, Stats

log = logging.getLogger("paiju.ai")

DECISIONS = Counter("paiju_ai_decisions_total", "Decisions the AI players made", ["game"])
DECISION_SECONDS = Histogram(
    "paiju_ai_decision_seconds", "One AI decision: its seat_view call and the choice",
    ["game"], buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0))

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


class AiBot(Bot):
    """A :class:`~paiju.tools.bots.Bot` whose choices are the game's AI's at
    ``level``, from its seat's ``seat_view``. ``on_seat_view`` (optional) gets
    each reply (tests keep them). It signs in as an AI player (``login``
    with ``ai: true``): its seats are marked ``ai``."""

    ai = True

    def __init__(self, *args: Any, level: str = DEFAULT_LEVEL,
                 on_seat_view: Callable[[dict[str, Any]], None] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.level = level_of(self.game, level)
        self.on_seat_view = on_seat_view
        #: one AI player a game (a deal and its redeals: a new one each deal)
        self.players: dict[str, Player] = {}

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
                 stop: asyncio.Event | None = None) -> dict[str, Any]:
    """Sit ``players`` AIs (named ``prefix`` + 1, 2 …) at ``game`` and play
    ``games`` games at each table (``None``: until stopped); returns the bots'
    summary (:meth:`~paiju.tools.bots.Stats.summary`) with ``level``, the
    level played. ``bot`` makes each AI (default :class:`AiBot`; tests keep
    what theirs receive). Once ``stop`` is set, each AI plays the game it is
    in (or, between games, the next one) to its end and stops: an AI never
    leaves mid-game."""
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
                                   random.Random(rng.random()), level=chosen))
    stopping = asyncio.create_task(finish_on(stop, bots)) if stop is not None else None
    try:
        await asyncio.gather(*(b.run() for b in bots))
    finally:
        if stopping is not None:
            stopping.cancel()
    return {**stats.summary(time.perf_counter() - start), "level": chosen}
