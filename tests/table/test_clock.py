"""The FakeClock (pure logic): callbacks in deadline order, cancel, due now."""

from __future__ import annotations

import asyncio

from services.table.clock import FakeClock


async def test_fake_clock_fires_in_deadline_order_and_only_when_advanced() -> None:
    clock = FakeClock(start=100.0)
    seen: list[tuple[str, float]] = []
    clock.call_at(130.0, lambda: seen.append(("b", clock.now())))
    clock.call_at(110.0, lambda: seen.append(("a", clock.now())))
    cancelled = clock.call_at(120.0, lambda: seen.append(("x", clock.now())))
    cancelled.cancel()
    clock.advance(9.99)
    assert seen == []
    clock.advance(15)
    assert seen == [("a", 110.0)]
    clock.advance(10)
    assert seen == [("a", 110.0), ("b", 130.0)]
    clock.call_at(50.0, lambda: seen.append(("past", clock.now())))
    await asyncio.sleep(0)
    assert seen[-1] == ("past", clock.now())
