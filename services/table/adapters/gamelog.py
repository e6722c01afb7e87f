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

import asyncio
import hashlib
import itertools
import logging
import random
import time
from typing import Any

import nats.errors
import nats.js.errors
from nats.aio.client import Client as NATS
from nats.js import api

from paiju.runtime import jsontext
from services.table import metrics
from services.table.adapters.jspublish import JetStreamPublisher

log = logging.getLogger("paiju.table.gamelog")

STREAM_PREFIX = "paiju_gamelog_"
SUBJECT_PREFIX = "paiju.gamelog."
#: How long entries are kept (seconds): a week, far longer than any sitting.
MAX_AGE_SECONDS = 7 * 24 * 3600.0
#: JetStream's error code for replicas > 1 on a server that is not clustered.
NOT_CLUSTERED = 10074
#: JetStream's error code for a wrong expected last (subject) sequence.
WRONG_LAST_SEQUENCE = (10071, 10164)
#: The first bound and the cap of the backoff between tries of an append (seconds).
RETRY_FIRST_SECONDS, RETRY_CAP_SECONDS = 0.05, 0.5


class Fenced(Exception):
    """The append expected another last sequence: another instance appended
    to the sitting's log since (it took the game over)."""


class LogUnavailable(Exception):
    """JetStream did not acknowledge the append (NATS down or too slow)."""


class GameLog:
    """The game log of table pool ``pool`` (:func:`services.table.adapters.lease.pool_name`)
    on a nats-py connection (``replicas`` for the stream)."""

    def __init__(self, nc: NATS, pool: str, replicas: int = 1, timeout: float = 2.0,
                 retry_seconds: float = 5.0,
                 publisher: JetStreamPublisher | None = None) -> None:
        self.nc = nc
        #: Sends the appends (one shared reply subscription; a new one if not given).
        self.publisher = publisher if publisher is not None else JetStreamPublisher(nc)
        #: How long an unanswered append is sent again (seconds, from its first try).
        self.retry_seconds = retry_seconds
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
        goes on, see :meth:`services.table.application.room.RoomRunner`); the
        time taken is observed in paiju_table_log_append_seconds.

        An append JetStream did not answer (no responders while a stream
        leader is elected, a lost acknowledgement, JetStream temporarily
        unavailable) is sent again, with jittered backoff, for at most
        :attr:`retry_seconds`. Each try carries the same ``Nats-Msg-Id`` (the
        sitting, ``expect`` and a hash of the entry); where a try is refused
        for the last sequence because an earlier try landed, the log's last
        entry carries that id and its sequence is returned: the entry is
        written once, and fenced only by another writer's entry."""
        if not self.nc.is_connected:
            # Not even sent (nats-py would send it on reconnecting, late).
            raise LogUnavailable(f"log of {game_id}: NATS not connected")
        data = jsontext.dumpb(entry)
        msg_id = f"{game_id}:{expect}:{hashlib.blake2b(data, digest_size=8).hexdigest()}"
        headers = {"Nats-Expected-Last-Subject-Sequence": str(expect), "Nats-Msg-Id": msg_id}
        started = time.perf_counter()
        try:
            for attempt in itertools.count(1):
                try:
                    outcome = await self._try_append(game_id, data, headers)
                except Fenced:
                    landed = await self._landed(game_id, msg_id) if attempt > 1 else None
                    if landed is None:
                        raise
                    return landed
                if isinstance(outcome, int):
                    return outcome
                wait = random.uniform(0, min(RETRY_CAP_SECONDS,
                                             RETRY_FIRST_SECONDS * 2 ** attempt))
                if (not self.nc.is_connected
                        or time.perf_counter() + wait - started > self.retry_seconds):
                    raise LogUnavailable(f"log of {game_id}: {type(outcome).__name__} "
                                         f"{outcome}") from outcome
                metrics.LOG_APPEND_RETRIES.inc()
                await asyncio.sleep(wait)
            raise AssertionError("unreachable")
        finally:
            metrics.LOG_APPEND_SECONDS.observe(time.perf_counter() - started)

    async def _landed(self, game_id: str, msg_id: str) -> int | None:
        """The sequence of the sitting's last entry where it carries
        ``msg_id`` (an earlier try of this append landed), else None.
        :class:`LogUnavailable` where the log cannot be read."""
        try:
            last = await self.js.get_last_msg(self.stream, self.subject(game_id))
        except (nats.errors.Error, TimeoutError, OSError) as e:
            raise LogUnavailable(f"log of {game_id}: {type(e).__name__} {e}") from e
        if (last.headers or {}).get("Nats-Msg-Id") == msg_id and last.seq is not None:
            return int(last.seq)
        return None

    async def _try_append(self, game_id: str, data: bytes, headers: dict[str, str]
                          ) -> int | Exception:
        """One try of :meth:`append`: the entry's stream sequence, or the
        failure worth another try (JetStream did not answer). Raises
        :class:`Fenced` or :class:`LogUnavailable` for the others."""
        try:
            return await self.publisher.publish(self.subject(game_id), data,
                                                timeout=self.timeout, headers=headers)
        except nats.js.errors.APIError as e:
            if e.err_code in WRONG_LAST_SEQUENCE:
                raise Fenced(f"log of {game_id}: {e.description}") from e
            if isinstance(e, nats.js.errors.ServiceUnavailableError):
                return e
            raise LogUnavailable(f"log of {game_id}: {e}") from e
        except (nats.js.errors.NoStreamResponseError, nats.errors.TimeoutError,
                TimeoutError) as e:
            return e
        except (nats.errors.Error, OSError) as e:
            raise LogUnavailable(f"log of {game_id}: {type(e).__name__} {e}") from e

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
                out.append((int(msg.metadata.sequence.stream), jsontext.loads(msg.data)))
        finally:
            await sub.unsubscribe()
        return out
