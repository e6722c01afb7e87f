"""No ``seq`` gap or repeat reaches a client: the numbered events of one
connection pass here between NATS and its send queue.

Each numbered stream of the connection (its table's public events, under the
subscription key ``table`` of a seated player or ``watch`` of a spectator,
and its player's private events, key ``player``) has a
:class:`~services.gateway.domain.sequence.SeqLine`. An event the client has
already been sent (NATS delivered it twice, or a view covered it) is
dropped. An event after a gap is held, with every numbered event after it,
while the gap is repaired: the gateway asks the table for the client's view
(its own seat's ``GetView``, or a spectator's public view) and sends it as a
``view`` event (docs/client-protocol.md "Events": its own ``seq`` is the
player's, ``public_seq`` the table's; a spectator's carries the public view
and the public ``seq``); then the held events go on, those the view covers
dropped. A table's own ``view`` event (a takeover's, a level's) older than
public events the client already has (NATS hands the two subscriptions'
messages on in either order) would take the client back: it is replaced by
a fresh view the same way. After the gateway's NATS connection came back
every connection that follows a table gets its view so
(:meth:`Sequencer.resync`): what was published while it was away is lost.
Where no view can be had (the game ended, the table does not answer) the
held events go on as they are and the lines start again: the client sees
the gap and asks for its ``view``, as the protocol says. Repairs are counted in
``paiju_gateway_seq_repairs_total{kind}``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Literal

from paiju.runtime import jsontext
from services.gateway import metrics
from services.gateway.domain.sequence import SeqLine, numbered

log = logging.getLogger("paiju.gateway")

#: The subscription keys of a table's public events: a seated player's, a spectator's.
PUBLIC_KEYS = frozenset({"table", "watch"})
#: The subscription key of the player's private events.
PRIVATE_KEY = "player"
NUMBERED_KEYS = PUBLIC_KEYS | {PRIVATE_KEY}
#: Views fetched in a row for one repair before the held events go on as
#: they are (a view older than the event that asked for it).
MAX_VIEWS = 3

#: Fetches the ``view`` event that levels the client (``key``: the public
#: stream's subscription key, ``watch`` for a spectator): the event as the
#: client gets it, or ``None`` where there is no running game to view. May
#: raise (a service away): the repair then gives up.
FetchView = Callable[[str], Awaitable[dict[str, Any] | None]]

#: A held event: its subscription key, the decoded event and its JSON text.
Held = tuple[str, dict[str, Any], str]
#: What became of an event: sent (or dropped), a gap before it, a stale view.
Passed = Literal["sent", "gap", "stale"]


class Sequencer:
    """The numbered streams of one connection (see the module docstring).
    ``deliver`` queues a JSON text for the client; ``fetch`` gets a view."""

    def __init__(self, deliver: Callable[[str], None], fetch: FetchView) -> None:
        self.deliver = deliver
        self.fetch = fetch
        self.lines: dict[str, SeqLine] = {}
        #: Events held while a repair runs (``None``: none runs).
        self.held: list[Held] | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def repairing(self) -> bool:
        """True while a repair runs (numbered events are held)."""
        return self.held is not None

    def offer(self, key: str, event: dict[str, Any], text: str) -> None:
        """An event of subscription ``key`` came (``text``: its JSON): forward,
        drop or hold it. Events of other keys and unnumbered ones go on at once."""
        if key in NUMBERED_KEYS and self.held is not None and numbered(event) is not None:
            self.held.append((key, event, text))
            return
        passed = self._pass(key, event, text, covered=False)
        if passed != "sent":
            self._start(self._public_key(key), [(key, event, text)] if passed == "gap" else [])

    def forget(self, key: str) -> None:
        """The subscription ``key`` ended or was replaced: its next event starts
        its line again."""
        self.lines.pop(key, None)

    def resync(self, keys: Iterable[str]) -> None:
        """Send the client its view now (the gateway's NATS connection came
        back): for the first of ``keys`` (the connection's subscription keys)
        that is a table's public events; nothing where none is, or a repair
        runs already."""
        key = next((k for k in sorted(keys) if k in PUBLIC_KEYS), None)
        if key is None or self.held is not None:
            return
        metrics.SEQ_REPAIRS.labels("reconnect").inc()
        self._start(key, [])

    def close(self) -> None:
        """The connection ended: a repair under way stops."""
        if self._task is not None:
            self._task.cancel()
        self.held = None

    # -- inside ---------------------------------------------------------------------

    def _pass(self, key: str, event: dict[str, Any], text: str, *, covered: bool) -> Passed:
        """Forward or drop ``event`` (``sent``); ``gap``: neither, a gap is
        before it; ``stale``: a table's ``view`` older than the public events
        the client has (its public subscription's events came first), dropped:
        a fresh view is to be sent. ``covered``: a view sent already covers
        the repeats (not counted)."""
        at = numbered(event) if key in NUMBERED_KEYS else None
        if at is None:
            self.deliver(text)
            return "sent"
        line = self.lines.setdefault(key, SeqLine())
        verdict = line.check(*at)
        if verdict == "gap":
            metrics.SEQ_REPAIRS.labels("gap").inc()
            log.info("seq gap repaired", extra={"stream": key, "game_id": at[0],
                                                "seq": at[1], "last": line.last})
            return "gap"
        if verdict == "repeat":
            if not covered:
                metrics.SEQ_REPAIRS.labels("repeat").inc()
            return "sent"
        if key == PRIVATE_KEY and event.get("type") == "view":
            if self._stale(event):
                metrics.SEQ_REPAIRS.labels("gap").inc()
                log.info("stale view replaced", extra={"game_id": at[0]})
                return "stale"
            self._level("table", event)
        self.deliver(text)
        return "sent"

    def _stale(self, view: dict[str, Any]) -> bool:
        """True where ``view``'s ``public_seq`` is older than the last public
        event sent of its game."""
        game, public = view.get("game_id"), view.get("public_seq")
        line = self.lines.get("table")
        return line is not None and isinstance(game, str) and type(public) is int \
            and line.behind(game, public)

    def _public_key(self, key: str) -> str:
        """The public stream whose view repairs ``key``'s gap."""
        if key in PUBLIC_KEYS:
            return key
        return "table" if "table" in self.lines or "watch" not in self.lines else "watch"

    def _start(self, key: str, held: list[Held]) -> None:
        self.held = held
        self._task = asyncio.get_running_loop().create_task(self._repair(key))

    async def _repair(self, key: str) -> None:
        """Send views until the held events follow on (at most
        :data:`MAX_VIEWS`), else let them go on as they are; never leaves
        events held (an unexpected error is logged and they go on)."""
        try:
            for _ in range(MAX_VIEWS):
                view = await self._view(key)
                if view is None:
                    break
                self._send_view(key, view)
                if self._flush():
                    return
        except Exception:
            log.exception("repairing a seq gap failed", extra={"stream": key})
        while not self._flush():  # each line starts again at its held event
            self.lines.clear()

    async def _view(self, key: str) -> dict[str, Any] | None:
        try:
            return await self.fetch(key)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # any failure: the client repairs it itself
            log.warning("no view to repair a seq gap: %r", e, extra={"stream": key})
            return None

    def _send_view(self, key: str, view: dict[str, Any]) -> None:
        """Send ``view`` (a ``view`` event) and level the lines it covers."""
        self._level(key, view)
        at = numbered(view)
        player_seq = view.get("player_seq")
        if key != "watch" and at is not None and type(player_seq) is int:
            self.lines.setdefault(PRIVATE_KEY, SeqLine()).level(at[0], player_seq)
        self.deliver(jsontext.dumps(view))

    def _level(self, key: str, view: dict[str, Any]) -> None:
        """Level the public line ``key`` at the ``public_seq`` of ``view``."""
        game, public = view.get("game_id"), view.get("public_seq")
        if isinstance(game, str) and game and type(public) is int:
            self.lines.setdefault(key, SeqLine()).level(game, public)

    def _flush(self) -> bool:
        """Let the held events go on; ``True`` when they did, ``False`` where
        one left a gap again (it and those after it stay held)."""
        held = self.held or []
        for i, (key, event, text) in enumerate(held):
            passed = self._pass(key, event, text, covered=True)
            if passed != "sent":  # a stale view is not held again
                self.held = held[i:] if passed == "gap" else held[i + 1:]
                return False
        self.held = None
        return True
