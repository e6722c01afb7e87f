"""The lobby's seat request to the AI pool (services/lobby/adapters/ai_pool.py)
over a real NATS server: an AI comes only where a pool worker says ``ok: true``;
no worker, a refusal or an answer that is not one leave the seat free."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import nats
import pytest
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg

from paiju.runtime import subjects
from services.lobby.adapters import ai_pool


@pytest.fixture
async def nc(nats_server: str) -> AsyncIterator[NATS]:
    client = await nats.connect(nats_server)
    try:
        yield client
    finally:
        await client.close()


async def test_no_worker_means_no_ai(nc: NATS) -> None:
    assert await ai_pool.ask(nc, "hunzhan-practice-01", "hunzhan-practice", "hunzhan", 1,
                             timeout=2) is False


@pytest.mark.parametrize(("answer", "comes"), [
    (b'{"ok": true, "name": "\\u673a\\u5668\\u4eba1"}', True),
    (b'{"ok": false}', False),
    (b'{"ok": "yes"}', False),
    (b"not json", False),
])
async def test_an_ai_comes_only_where_a_worker_says_ok(nc: NATS, answer: bytes,
                                                       comes: bool) -> None:
    asked: list[dict[str, object]] = []

    async def worker(msg: Msg) -> None:
        asked.append(json.loads(msg.data))
        await msg.respond(answer)

    sub = await nc.subscribe(subjects.ai_seat("daa"), subjects.AI_POOL, cb=worker)
    try:
        assert await ai_pool.ask(nc, "daa-practice-02", "daa-practice", "daa", 3) is comes
    finally:
        await sub.unsubscribe()
    assert asked == [{"room": "daa-practice-02", "server": "daa-practice", "game": "daa",
                      "seat": 3}]
