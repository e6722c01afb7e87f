"""The durable game log: one JetStream stream, one subject per sitting.

Stream ``paiju_gamelog_<pool>`` (file storage, ``PAIJU_GAME_LOG_REPLICAS``
replicas, default 1; entries kept :data:`MAX_AGE_SECONDS`) holds subjects
``paiju.gamelog.<pool>.<game_id>``, ``game_id`` being the lobby's id of the sitting
(its first deal; the redeals append to the same subject). Each message is one
entry as JSON (:mod:`services.table.domain.sitting` says which entries there are).

Appends are fenced: :meth:`GameLog.append` sends
``Nats-Expected-Last-Subject-Sequence`` with the stream sequence of the last
entry its owner knows (0 for the first entry, which the subject must not have
yet), so an instance that is not the last to have appended cannot append:
:class:`Fenced`. While JetStream does not answer the append raises
:class:`LogUnavailable` (the game pauses, docs/table.md "The game log").
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import nats.errors
import nats.js.errors
from nats.aio.client import Client as NATS
from nats.js import api

from services.table import metrics

log = logging.getLogger("paiju.table.gamelog")

STREAM_PREFIX = "paiju_gamelog_"
SUBJECT_PREFIX = "paiju.gamelog."
#: How long entries are kept (seconds): a week, far longer than any sitting.
MAX_AGE_SECONDS = 7 * 24 * 3600.0
#: JetStream's error code for replicas > 1 on a server that is not clustered.
NOT_CLUSTERED = 10074
#: JetStream's error code for a wrong expected last (subject) sequence.
WRONG_LAST_SEQUENCE = (10071, 10164)


class Fenced(Exception):
    """The append expected another last sequence: another instance appended
    to the sitting's log since (it took the game over)."""


class LogUnavailable(Exception):
    """JetStream did not acknowledge the append (NATS down or too slow)."""


class GameLog:
    """The game log of table pool ``pool`` (:func:`services.table.adapters.lease.pool_name`)
    on a nats-py connection (``replicas`` for the stream)."""

    def __init__(self, nc: NATS, pool: str, replicas: int = 1, timeout: float = 2.0) -> None:
        self.nc = nc
        self.stream = STREAM_PREFIX + pool
        self.prefix = f"{SUBJECT_PREFIX}{pool}."
        self.js = nc.jetstream(timeout=timeout)
        self.replicas = replicas
        self.timeout = timeout

    def subject(self, game_id: str) -> str:
        """``paiju.gamelog.<pool>.<game_id>``: the log subject of a sitting."""
        return self.prefix + game_id

    async def ensure(self) -> None:
        """Create the stream (or bring its configuration up to date); on a NATS
        that is not clustered with 1 replica (logged)."""
        config = api.StreamConfig(
            name=self.stream, subjects=[self.prefix + ">"], storage=api.StorageType.FILE,
            num_replicas=self.replicas, max_age=MAX_AGE_SECONDS,
            retention=api.RetentionPolicy.LIMITS, discard=api.DiscardPolicy.OLD)
        try:
            await self.js.add_stream(config)
        except nats.js.errors.APIError as e:
            if e.err_code == NOT_CLUSTERED and config.num_replicas != 1:
                log.warning("NATS is not clustered: the game log gets 1 replica, not %d",
                            config.num_replicas)
                self.replicas = config.num_replicas = 1
                return await self.ensure()
            if not isinstance(e, nats.js.errors.BadRequestError):
                raise
            await self.js.update_stream(config)

    async def append(self, game_id: str, entry: dict[str, Any], expect: int) -> int:
        """Append ``entry`` to the sitting's log, expecting ``expect`` to be the
        stream sequence of its last entry (0: none yet). Returns the entry's
        stream sequence. Raises :class:`Fenced` or :class:`LogUnavailable`
        (at once while NATS is not connected; after a timeout the entry may
        still have been appended: the caller reads the log again before it
        goes on, see :meth:`services.table.application.room.RoomRunner`); the time taken
        is observed in paiju_table_log_append_seconds."""
        if not self.nc.is_connected:
            # Not even sent (nats-py would send it on reconnecting, late).
            raise LogUnavailable(f"log of {game_id}: NATS not connected")
        data = json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode()
        started = time.perf_counter()
        try:
            ack = await self.js.publish(
                self.subject(game_id), data, timeout=self.timeout,
                headers={"Nats-Expected-Last-Subject-Sequence": str(expect)})
        except nats.js.errors.APIError as e:
            if e.err_code in WRONG_LAST_SEQUENCE:
                raise Fenced(f"log of {game_id}: {e.description}") from e
            raise LogUnavailable(f"log of {game_id}: {e}") from e
        except (nats.errors.Error, TimeoutError, OSError) as e:
            raise LogUnavailable(f"log of {game_id}: {type(e).__name__} {e}") from e
        finally:
            metrics.LOG_APPEND_SECONDS.observe(time.perf_counter() - started)
        return int(ack.seq)

    async def last_seq(self, game_id: str) -> int:
        """The stream sequence of the sitting's last entry (0 when none)."""
        try:
            msg = await self.js.get_last_msg(self.stream, self.subject(game_id))
        except nats.js.errors.NotFoundError:
            return 0
        return int(msg.seq or 0)

    async def read(self, game_id: str) -> list[tuple[int, dict[str, Any]]]:
        """Every entry of the sitting's log, oldest first, as ``(stream
        sequence, entry)``. Raises ``nats`` errors where the log cannot be read."""
        last = await self.last_seq(game_id)
        if last == 0:
            return []
        out: list[tuple[int, dict[str, Any]]] = []
        sub = await self.js.subscribe(
            self.subject(game_id), stream=self.stream, ordered_consumer=True,
            deliver_policy=api.DeliverPolicy.ALL)
        try:
            while not out or out[-1][0] < last:
                msg = await sub.next_msg(timeout=self.timeout)
                out.append((int(msg.metadata.sequence.stream), json.loads(msg.data)))
        finally:
            await sub.unsubscribe()
        return out
