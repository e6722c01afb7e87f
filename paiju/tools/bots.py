"""``paiju bots``: real WebSocket clients that play through a gateway.

Each bot logs in (development mode), sits at a seat of a room of its game,
presses start, and plays random legal moves with a think time per move, as
people do, until its table has played the games asked for. Moves are chosen
among the table's legal actions for the bot (the ``hints`` command, computed
by the shared rules package on the bot's own seat). Bots handle timeouts,
redeals and dropped connections: they sign in again with their token (at the
next gateway of ``--gateway`` when one stops answering) and carry on from their
view, also mid-game. A bot that sees a gap in the table's public ``seq`` or in
its own private ``seq`` asks for its ``view`` again, as the web client does.

The run ends with a JSON summary as the last line of standard output: games
finished per game, errors by code, and the action round trip (a bot sends an
action, the table's public event of it comes back) at p50 and p99 in ms.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import websockets

from paiju.rules import ENGINES, load
from paiju.tools.botclient import BotError as BotError  # re-exported: the bots raise it
from paiju.tools.botclient import Client as Client

#: Public events that answer a seat's own action (for the round trip).
ACTION_EVENTS = {"played", "passed", "bid", "declared", "revealed", "taken_back"}
#: Events on the player's own subject, numbered by its private ``seq``
#: (docs/client-protocol.md "Events"); the table's public events carry its public ``seq``.
PRIVATE_EVENTS = {"hand", "your_turn", "kitty", "view", "balance_changed", "counter"}
#: Seats per game (shared/spec/records.md "Games"), as the engines have them.
SEATS = {game: load(game).seats for game in ENGINES}
GAMES = tuple(SEATS)


#: Seconds a bot whose last game the room's ``last_result`` ended waits for
#: that game's ``game_finished`` (which may come after it) before it stops.
FINISH_GRACE = 10.0

#: Seconds after which a bot whose seat shows ready in a waiting room presses
#: start again anyway (a ``room_changed`` that undid the press may be lost).
READY_AGAIN = 30.0

#: Refusals that a moment later may go through (the bot tries again).
TRANSIENT = frozenset({"unavailable", "rate_limited", "busy"})
#: The longest wait between a bot's attempts after refusals (seconds).
BACKOFF_CAP_SECONDS = 8.0


@dataclass
class Stats:
    """What a bot run measured."""

    games: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    rtts: list[float] = field(default_factory=list)
    actions: int = 0
    reconnects: int = 0
    #: commands sent again after ``busy``, and sessions started again after
    #: another transient refusal (unavailable …)
    retries: int = 0
    #: table events of a game that came after a gap in its public ``seq``, or
    #: again (a ``seq`` not above the last one seen)
    seq_gaps: int = 0
    seq_repeats: int = 0
    #: the longest a bot waited between two table events of one game (seconds)
    longest_wait: float = 0.0
    #: that longest wait per game: the lobby's game id (a deal and its redeals
    #: are one game) -> seconds, the longest any of its seats waited
    game_waits: dict[str, float] = field(default_factory=dict)

    def summary(self, seconds: float) -> dict[str, Any]:
        """The JSON summary (round trips in milliseconds)."""
        def pct(q: float) -> float | None:
            if not self.rtts:
                return None
            if len(self.rtts) == 1:
                return round(self.rtts[0] * 1000, 2)
            return round(statistics.quantiles(self.rtts, n=100, method="inclusive")[
                int(q) - 1] * 1000, 2)
        return {"games_finished": dict(self.games), "errors": dict(self.errors),
                "actions": self.actions, "actions_per_second": round(self.actions / seconds, 2)
                if seconds > 0 else 0, "rtt_ms": {"p50": pct(50), "p99": pct(99)},
                "reconnects": self.reconnects, "retries": self.retries,
                "seconds": round(seconds, 1),
                "seq_gaps": self.seq_gaps, "seq_repeats": self.seq_repeats,
                "longest_wait_s": round(self.longest_wait, 2)}


def sitting(game_id: str) -> str:
    """The lobby's game id of a deal: ``<id>`` of ``<id>.r<n>`` (a redeal), else
    ``game_id`` itself."""
    head, dot, tail = game_id.rpartition(".r")
    return head if dot and tail.isdigit() else game_id


class Bot:
    """One player: sits at ``room`` seat ``seat`` and plays ``games`` games, or
    until a game finishes after ``until_ms`` (unix ms, the server's clock as the
    event's ``ts`` gives it, so that every bot of a table stops after the same game).
    ``declare_p``: the chance (0..1) that the bot declares when its declare
    buttons offer something during a deal (hunzhan / shengji trump, daa big A);
    0 makes a bot that never declares (a test can then be the only declarer)."""

    #: Whether the bot signs in as an AI player (机器人: its seats are marked ``ai``).
    ai = False

    def __init__(self, url: str | list[str], name: str, game: str, room: str, seat: int,
                 games: int, think: tuple[float, float], stats: Stats, rng: random.Random,
                 progress: Any = None, until_ms: int | None = None,
                 declare_p: float = 0.5) -> None:
        self.urls = [url] if isinstance(url, str) else list(url)
        self.url = self.urls[0]
        #: Refusals (``busy``, ``unavailable`` …) in a row, for the backoff.
        self.refusals = 0
        self.name, self.game, self.room, self.seat = name, game, room, seat
        self.games_left = games
        #: the games asked for, and the ids of this bot's games that finished
        #: (by ``game_finished`` or by the room's ``last_result``, whichever comes first)
        self.target = games
        self.finished: set[str] = set()
        #: ids of the games this bot saw the table's events of (it played them)
        self.played: set[str] = set()
        #: when (monotonic s) the games asked for were over: no ``ready`` from then on
        self.stopping: float | None = None
        self.until_ms = until_ms
        self.think = think
        self.declare_p = declare_p
        self.stats = stats
        self.rng = rng
        self.progress = progress
        self.client = Client(self.url, self._on_event)
        self.token = ""
        self.wake = asyncio.Event()
        self.my_turn: dict[str, Any] | None = None
        self.sent_at: float | None = None
        self.room_state = ""
        #: whether the room, as last seen (``room_changed`` or a reply, the
        #: newest ``version``), shows this bot's seat ready
        self.seat_ready = False
        self.room_version = -1
        self.ready_sent = False
        self.ready_at = 0.0  # monotonic s of the last press
        self.done = asyncio.Event()
        #: the game and the last public and private ``seq`` seen of it
        self.game_id = ""
        self.seq = 0
        self.player_seq = 0
        self.need_view = False
        self.last_event_at = 0.0  # monotonic s of the game's last table event

    # -- events ---------------------------------------------------------------------

    def _on_event(self, ev: dict[str, Any]) -> None:
        t = ev.get("type")
        self._check_seq(ev)
        if t == "view":
            self._from_view(ev)
        elif t == "your_turn":
            self.my_turn = ev
            self.wake.set()
        elif t in ACTION_EVENTS and ev.get("seat") == self.seat and self.sent_at is not None:
            self.stats.rtts.append(time.perf_counter() - self.sent_at)
            self.sent_at = None
        elif t == "turn" and ev.get("seat") != self.seat and self.my_turn is not None \
                and self.my_turn.get("phase") != "declaring":
            self.my_turn = None
        elif t == "game_finished":
            self.my_turn = None
            if ev.get("reason") != "redeal":
                self._game_over(str(ev.get("game_id") or self.game_id), int(ev.get("ts", 0)),
                                final=True)
            self.ready_sent = False
            self.wake.set()
        elif t == "room_changed" and ev.get("room") == self.room:
            self._saw_room(ev)
            self.room_state = str(ev.get("state"))
            # The room's way back to waiting may come before the table's
            # game_finished: its last_result then ends the bot's game already.
            last = ev.get("last_result")
            if self.room_state != "playing" and isinstance(last, dict) \
                    and sitting(str(last.get("game_id"))) in self.played:
                self._game_over(str(last["game_id"]), int(last.get("ended_ms") or 0),
                                final=False)
            self.wake.set()

    def _saw_room(self, room: dict[str, Any]) -> None:
        """Note whether ``room`` (as in ``room_changed``) shows this bot's seat
        ready, unless an older version of it than one seen already."""
        version = room.get("version")
        if isinstance(version, int):
            if version < self.room_version:
                return
            self.room_version = version
        self.seat_ready = any(s.get("seat") == self.seat and s.get("name") == self.name
                              and s.get("ready") for s in room.get("seats") or ())

    def _game_over(self, game_id: str, ts_ms: int, final: bool) -> None:
        """Game ``game_id`` of the bot finished at ``ts_ms`` (unix ms): count it
        once; after the games asked for (or past ``until_ms``) ready no more,
        and stop at its ``game_finished`` (``final``; else within
        :data:`FINISH_GRACE` s). A deal and its redeals are one game."""
        game_id = sitting(game_id)
        if game_id not in self.finished:
            self.finished.add(game_id)
            if self.seat == 0:
                self.stats.games[self.game] += 1
                if self.progress is not None:
                    self.progress()
            self.games_left = self.target - len(self.finished)
            late = self.until_ms is not None and ts_ms >= self.until_ms
            if (self.games_left <= 0 or late) and self.stopping is None:
                self.stopping = time.monotonic()
        if self.stopping is not None and final:
            self.done.set()

    def _check_seq(self, ev: dict[str, Any]) -> None:
        """Note the event's ``seq``; a gap in the public or the private numbers
        asks for a ``view`` (the next step sends it)."""
        seq = ev.get("seq")
        if not isinstance(seq, int) or ev.get("type") == "room_changed":
            return
        game = str(ev.get("game_id") or "")
        if ev.get("type") in PRIVATE_EVENTS:
            if self.player_seq and seq > self.player_seq + 1:
                self.need_view = True
            self.player_seq = max(self.player_seq, seq)
            return
        if game:
            self.played.add(sitting(game))
        now = time.monotonic()
        if game != self.game_id:
            self.game_id, self.seq = game, 0
        elif self.last_event_at:
            waited, key = now - self.last_event_at, sitting(game)
            self.stats.longest_wait = max(self.stats.longest_wait, waited)
            self.stats.game_waits[key] = max(self.stats.game_waits.get(key, 0.0), waited)
        self.last_event_at = now
        if self.seq and seq > self.seq + 1:
            self.need_view = True
            self.stats.seq_gaps += 1
        elif self.seq and seq <= self.seq:
            self.stats.seq_repeats += 1
        self.seq = max(self.seq, seq)
        if self.need_view:
            self.wake.set()

    def _from_view(self, view: dict[str, Any]) -> None:
        """Start again from a view (the ``view`` event or command reply): its
        ``seq`` numbers, and the bot's turn if it is to act. The table's
        public seq is the view's ``public_seq`` (a ``view`` event's own ``seq``
        is the player's, docs/client-protocol.md "Events"), else its ``seq``
        (a reply of a server without ``public_seq``)."""
        if view.get("game_id"):
            self.game_id = str(view["game_id"])
            self.played.add(sitting(self.game_id))
        public = view.get("public_seq", view.get("seq"))
        if isinstance(public, int):
            self.seq = public
        if isinstance(view.get("player_seq"), int):
            self.player_seq = view["player_seq"]
        self.need_view = False
        if self.seat in (view.get("to_act") or []) and not view.get("finished"):
            self.my_turn = {"type": "your_turn", "phase": view.get("phase"),
                            "declare_options": view.get("declare_options") or [],
                            "hints": view.get("hints")}
        else:
            self.my_turn = None
        self.wake.set()

    async def _refresh_view(self) -> None:
        """Ask for the view (after a gap, or on a reconnect into a running game)."""
        self.need_view = False
        try:
            reply = await self.client.call("view")
        except BotError as e:
            if e.code != "no_game":
                self.stats.errors[e.code] += 1
            return
        view = reply.get("view")
        if isinstance(view, dict):
            self._from_view(view)

    # -- the bot's life -------------------------------------------------------------

    async def run(self) -> None:
        """Sign in, sit, and play until the games are done (reconnecting on drops)."""
        while not self.done.is_set():
            try:
                await self._session()
            except (ConnectionError, OSError, websockets.WebSocketException) as e:
                self.stats.errors[type(e).__name__] += 1
                self.stats.reconnects += 1
                self._next_gateway()
                await asyncio.sleep(0.5)
            except BotError as e:
                if e.code not in TRANSIENT:
                    raise
                # A service was busy (sign-in or sitting under load): start
                # again, after the wait a ``busy`` asks for and a backoff.
                await self.client.close()
                self.stats.retries += 1
                await asyncio.sleep(self._backoff(e.retry_after_ms))
        await self.client.close()

    def _backoff(self, retry_after_ms: int | None) -> float:
        """Seconds to wait before starting again after the ``n``-th refusal in
        a row: capped exponential backoff with full jitter (0.5 s doubling up
        to :data:`BACKOFF_CAP_SECONDS`), at least the ``retry_after_ms`` a
        ``busy`` asked for."""
        self.refusals += 1
        ceiling = min(BACKOFF_CAP_SECONDS, 0.5 * 2.0 ** (self.refusals - 1))
        return max((retry_after_ms or 0) / 1000, self.rng.random() * ceiling)

    def _next_gateway(self) -> None:
        """Move to the next gateway of the list (after a dropped connection)."""
        i = self.urls.index(self.url) if self.url in self.urls else -1
        self.url = self.urls[(i + 1) % len(self.urls)]
        self.client.url = self.url

    async def _patient(self, cmd: str, **args: Any) -> dict[str, Any]:
        """``cmd`` on this connection, sent again while it is refused ``busy``
        (the gateway past its headroom: docs/operations.md "Admission
        control"), after the wait the refusal asks for and a backoff
        (:meth:`_backoff`); the connection is kept, so a crowd turned away
        costs the gateway a frame a try, not a new connection. Other refusals
        raise :class:`BotError`."""
        while True:
            try:
                return await self.client.call(cmd, **args)
            except BotError as e:
                if e.code != "busy":
                    raise
                self.stats.retries += 1
                await asyncio.sleep(self._backoff(e.retry_after_ms))

    async def _session(self) -> None:
        await self.client.connect()
        if self.token:
            await self._patient("auth", token=self.token)
        else:
            reply = await self._patient("login", name=self.name,
                                        **({"ai": True} if self.ai else {}))
            self.token = reply["token"]
        server = self.room.rsplit("-", 1)[0] if "-" in self.room else ""
        try:  # the room's changes (room_changed), sent again while busy
            await self._patient("watch_server", server=server)
        except BotError as e:
            self.stats.errors[e.code] += 1
        await self._sit()
        self.refusals = 0
        while not self.done.is_set():
            if self.client.closed.is_set():
                raise ConnectionError("connection closed")
            await self._step()

    async def _sit(self) -> None:
        """Sit at the bot's seat; seated already (a reconnect), carry on from
        the view, also when the room's game is running."""
        try:
            await self._patient("sit", room=self.room, seat=self.seat)
        except BotError as e:
            if e.code not in ("already_seated", "room_started"):
                self.stats.errors[e.code] += 1
                raise
            await self._refresh_view()
        self.ready_sent = False

    async def _try(self, cmd: str, **args: Any) -> dict[str, Any] | None:
        try:
            return await self.client.call(cmd, **args)
        except BotError as e:
            self.stats.errors[e.code] += 1
            return None

    async def _step(self) -> None:
        if self.need_view:
            await self._refresh_view()
        if self.stopping is not None:
            # The games asked for are over: never ready for one more; stop at
            # the last one's game_finished (or after the grace).
            left = self.stopping + FINISH_GRACE - time.monotonic()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(max(0.0, left)):
                    await self.done.wait()
            self.done.set()
            return
        if not self.ready_sent:
            self.ready_sent = True
            try:
                self.ready_at = time.monotonic()
                reply = await self.client.call("ready")
                self.refusals = 0
                if isinstance(reply.get("room"), dict):
                    self._saw_room(reply["room"])
            except BotError as e:
                if e.code in ("not_seated", "no_such_seat"):
                    await self._sit()
                elif e.code in TRANSIENT:
                    # refused for now (busy, a service not answering): press
                    # again after the wait it asks for, seen the room or not
                    self.ready_sent = False
                    self.stats.retries += 1
                    await asyncio.sleep(self._backoff(e.retry_after_ms))
                    return
                elif e.code != "room_started":
                    self.stats.errors[e.code] += 1
        self.wake.clear()
        turn = self.my_turn
        if turn is None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(5):
                    await self.wake.wait()
            if self.my_turn is None and self.room_state == "waiting" and (
                    not self.seat_ready or time.monotonic() - self.ready_at > READY_AGAIN):
                # the press was undone (an absent seat, a game that did not
                # start): press again; a seat shown ready waits for the others
                self.ready_sent = False
            return
        action = await self._choose(turn)
        await asyncio.sleep(self.rng.uniform(*self.think))
        if self.my_turn is not turn:
            return  # the turn moved on while thinking (a timeout, the deal ended)
        self.my_turn = None  # the next your_turn event wakes the bot again
        if action is not None:
            await self._act(action)

    async def _choose(self, turn: dict[str, Any]) -> dict[str, Any] | None:
        """The action (``{type, cards?}``) to send for ``turn`` (a ``your_turn``
        event), or ``None`` to send nothing: in a declaring window a random
        declaration with chance ``declare_p``, else a random action of the
        turn's own hints (your_turn.hints, as the web client takes them; asked
        with ``hints`` only from a server that does not send them)."""
        if turn.get("phase") == "declaring":
            options = turn.get("declare_options") or []
            if options and self.rng.random() < self.declare_p:
                return {"type": "declare", "cards": self.rng.choice(options)}
            return None
        actions = turn.get("hints")
        if not isinstance(actions, list):
            actions = ((await self._try("hints")) or {}).get("actions") or []
        return self.rng.choice(actions) if actions else None

    async def _act(self, action: dict[str, Any]) -> None:
        await self.client.pace()
        self.sent_at = time.perf_counter()
        self.stats.actions += 1
        try:
            await self.client.call_now("act", action=action)
        except BotError as e:
            self.sent_at = None
            self.stats.errors[e.code] += 1


def gateways(url: str | list[str]) -> list[str]:
    """The gateway URLs of ``--gateway`` (comma separated, or a list)."""
    urls = [u.strip() for u in (url.split(",") if isinstance(url, str) else url)]
    urls = [u for u in urls if u]
    if not urls:
        raise ValueError("no gateway URL")
    return urls


async def rooms_for(url: str, game: str, tables: int) -> list[tuple[str, int]]:
    """Pick ``tables`` idle rooms of ``game``'s coin servers (practice
    servers aside): [(room, seats)]."""
    probe = Client(url, lambda ev: None)
    await probe.connect()
    try:
        await probe.call("login", name=f"bots-{secrets.token_hex(4)}")
        servers = [s for s in (await probe.call("servers"))["servers"]
                   if s["game"] == game and not s.get("practice")]
        picked: list[tuple[str, int]] = []
        for s in sorted(servers, key=lambda s: (s["min_coins"], s["server"])):
            rooms = (await probe.call("rooms", server=s["server"]))["rooms"]
            for r in rooms:
                if r["state"] == "idle" and len(picked) < tables:
                    picked.append((r["room"], s["seats"] or SEATS[game]))
        if len(picked) < tables:
            raise SystemExit(f"only {len(picked)} idle rooms of {game} for {tables} tables")
        return picked
    finally:
        await probe.close()


async def run_bots(url: str | list[str], games: list[str], per_table: int | None, tables: int,
                   think: tuple[float, float], seed: int | None = None,
                   show_progress: bool = True, duration: float | None = None
                   ) -> dict[str, Any]:
    """Play ``per_table`` games (``None``: no limit) at ``tables`` tables of each
    game, stopping each table after the game that ends past ``duration`` seconds
    (when given); returns the summary. ``url``: one gateway or several
    (comma separated): bots are spread over them and move on when one dies."""
    from rich.progress import Progress

    if per_table is None and duration is None:
        raise ValueError("give a number of games or a duration")
    stats = Stats()
    rng = random.Random(seed)
    run_id = secrets.token_hex(3)
    start = time.perf_counter()
    until_ms = None if duration is None else int((time.time() + duration) * 1000)
    per = per_table if per_table is not None else 10**9
    total = per * tables * len(games) if per_table is not None else None
    with Progress(disable=not show_progress, transient=False) as progress:
        task = progress.add_task("games", total=total)
        bots: list[Bot] = []
        urls = gateways(url)
        for game in games:
            for t, (room, seats) in enumerate(await rooms_for(urls[0], game, tables)):
                for seat in range(seats):
                    n = len(bots)
                    spread = urls[n % len(urls):] + urls[:n % len(urls)]
                    bots.append(Bot(spread, f"bot-{run_id}-{game[:3]}{t}-{seat}", game, room,
                                    seat, per, think, stats, random.Random(rng.random()),
                                    lambda: progress.advance(task), until_ms))
        await asyncio.gather(*(b.run() for b in bots))
    return stats.summary(time.perf_counter() - start)
