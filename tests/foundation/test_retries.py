"""paiju.retries: jittered, capped, counted retries (tenacity). Pure logic:
the waits are recorded instead of slept."""

from __future__ import annotations

import pytest
from prometheus_client import REGISTRY

from paiju import retries


def sample(name: str, operation: str) -> float:
    return REGISTRY.get_sample_value(name, {"operation": operation}) or 0.0


class Flaky:
    """Fails ``failures`` times with ConnectionError, then answers ``"ok"``."""

    def __init__(self, failures: int) -> None:
        self.failures, self.calls = failures, 0

    async def __call__(self) -> str:
        self.calls += 1
        if self.calls <= self.failures:
            raise ConnectionError(f"down ({self.calls})")
        return "ok"


async def test_waits_are_jittered_below_a_doubling_bound_capped() -> None:
    waits: list[float] = []

    async def record(seconds: float) -> None:
        waits.append(seconds)

    before = sample("paiju_retries_total", "test_flaky")
    flaky = Flaky(40)
    assert await retries.call("test_flaky", flaky, lambda e: isinstance(e, ConnectionError),
                              first=0.1, cap=2.0, sleep=record) == "ok"
    assert flaky.calls == 41 and len(waits) == 40
    assert sample("paiju_retries_total", "test_flaky") == before + 40
    # try n+1 waits at most min(cap, first * 2^n): 0.1, 0.2, 0.4 ... 2.0, 2.0
    for n, w in enumerate(waits):
        assert 0 <= w <= min(2.0, 0.1 * 2 ** n) + 1e-9, (n, w)
    # jitter: not the bound itself every time, and the capped waits differ
    late = waits[10:]
    assert len(set(late)) > 20 and max(late) <= 2.0 and sum(late) / len(late) < 1.9


async def test_an_answer_that_is_not_a_failure_is_not_retried() -> None:
    async def refuse() -> str:
        raise ValueError("final")

    with pytest.raises(ValueError, match="final"):
        await retries.call("test_final", refuse, lambda e: isinstance(e, ConnectionError))
    assert sample("paiju_retries_total", "test_final") == 0


async def test_giving_up_raises_the_last_error_and_is_counted() -> None:
    waited = []

    async def record(seconds: float) -> None:
        waited.append(seconds)

    before = sample("paiju_retries_exhausted_total", "test_give_up")
    with pytest.raises(ConnectionError, match=r"down \("):
        await retries.call("test_give_up", Flaky(10**6), lambda e: True, give_up_after=0.0,
                           sleep=record)
    assert sample("paiju_retries_exhausted_total", "test_give_up") == before + 1
