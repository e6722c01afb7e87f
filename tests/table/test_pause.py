"""While the game log cannot be written (NATS stopped), a game pauses: an
action gets ``unavailable`` and changes nothing, no clock runs out; once NATS
is back the game goes on, its turn with the time it had left.
A real NATS server of the test's own, stopped
and started; the table on a FakeClock."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc

from services.table.domain.outgoing import ms
from tests.fixtures import NatsServer
from tests.table.conftest import harness_running


async def test_game_pauses_while_the_log_cannot_be_written(nats_process: NatsServer,
                                                           tmp_path: Path) -> None:
    async with harness_running(nats_process.url, tmp_path) as h:
        ps = ["pz0", "pz1", "pz2"]
        await h.open(ps)
        room, _ = await h.create("doudizhu", ps, options={"turn_seconds": 20})
        before = await h.view(room, ps[0])
        seat = before["to_act"][0]
        runner = h.table.rooms[room]
        nats_process.stop()
        try:
            try:
                await h.act(room, ps[seat], "call")
                raise AssertionError("an action was accepted without its log")
            except grpc.aio.AioRpcError as e:
                assert e.code() == grpc.StatusCode.UNAVAILABLE
                assert (e.details() or "").startswith("unavailable:")
            assert runner.paused_at is not None
            # Far past the turn's 20 s: nothing runs out while paused.
            h.clock.advance(60)
            await asyncio.sleep(0.3)
            during = await h.view(room, ps[0])
            assert during["public_seq"] == before["public_seq"]
            assert during["to_act"] == [seat] and during["phase"] == "bidding"
            assert runner.sitting.timeouts == 0 and not runner.sitting.actions
        finally:
            nats_process.start()
        await h.wait(lambda: runner.paused_at is None, "the game goes on", timeout=30)
        # NATS back, the table sends every seat its view once more
        # (services/table/application/outage.py)
        await h.wait(lambda: runner.entries[-1]["type"] == "level", "the level entry", timeout=30)
        assert [e["type"] for e in runner.entries[-2:]] == ["resume", "level"]
        after = await h.view(room, ps[0])
        # The turn had 20 s left when the game stood still; it goes on with them.
        assert after["deadlines"] == {str(seat): ms(h.clock.now() + 20)}
        # Everyone was brought level: each seat's view, then the turn (public);
        # then each seat's view again (nothing public).
        assert after["public_seq"] == before["public_seq"] + 1
        assert after["player_seq"] == before["player_seq"] + 2
        assert (await h.act(room, ps[seat], "call")).ok
        nc = h.nc
        assert nc is not None
        await h.wait(lambda: nc.is_connected, "the test's own NATS connection back")
