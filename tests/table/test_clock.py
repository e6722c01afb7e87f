"""The FakeClock (pure logic): callbacks in deadline order, cancel, due now."""

from __future__ import annotations

import asyncio

from services.table.application.clock import FakeClock
from services.table.domain.outgoing import ms, ms_at_or_after


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


def test_a_deadline_as_an_entrys_millisecond_is_not_before_it() -> None:
    """A deadline between two milliseconds (a deal's start in whole ms plus
    3 cards of 60 ms: 1700000000.1820002 as a float) is logged as the first
    millisecond not before it, and one on a millisecond as that millisecond."""
    d = 1_700_000_000.002 + 3 * 0.06
    assert ms(d) / 1000 < d  # rounded, it would be before the deadline
    assert ms_at_or_after(d) == 1_700_000_000_183
    assert ms_at_or_after(1_700_000_000.182) == 1_700_000_000_182
    assert ms_at_or_after(1_700_000_000.0) == 1_700_000_000_000
