"""paiju.runtime.retries: jittered, capped, counted retries (tenacity). Pure logic:
the waits are recorded instead of slept."""

from __future__ import annotations

import pytest
from prometheus_client import REGISTRY

from paiju.runtime import retries


def sample(name: str, operation: str) -> float:
    return REGISTRY.get_sample_value(name, {"operation": operation}) or 0.0


#: A retry budget that never runs out (the backoff alone is under test).
UNLIMITED = retries.RetryBudget(burst=1e12)


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


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
                              first=0.1, cap=2.0, sleep=record, budget=UNLIMITED) == "ok"
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


def test_the_budget_allows_a_burst_then_a_tenth_of_the_first_tries() -> None:
    clock = Clock()
    budget = retries.RetryBudget(ratio=0.1, per_second=1.0, burst=10.0, clock=clock)
    assert [budget.wait_for_token() for _ in range(10)] == [0.0] * 10  # the burst
    assert budget.wait_for_token() == 1.0  # empty: the next token in a second
    clock.t += 1.0  # that second passed: the bucket is back at zero
    for _ in range(20):
        budget.tried()  # twenty first tries earn two retries
    assert budget.wait_for_token() == 0.0
    assert budget.wait_for_token() == pytest.approx(0.0, abs=1e-9)
    assert budget.wait_for_token() == pytest.approx(1.0)
    clock.t += 100.0
    assert budget.tokens <= 10.0 and budget.wait_for_token() == 0.0  # refilled, capped


async def test_retries_past_the_budget_wait_for_their_token() -> None:
    """With the budget spent, a retry's wait grows by the time until its
    token (counted); the backoff's own wait is kept."""
    clock = Clock()
    budget = retries.RetryBudget(ratio=0.1, per_second=2.0, burst=2.0, clock=clock)
    waits: list[float] = []

    async def record(seconds: float) -> None:
        waits.append(seconds)

    before = REGISTRY.get_sample_value("paiju_retry_budget_waits_total",
                                       {"operation": "test_budget"}) or 0.0
    assert await retries.call("test_budget", Flaky(4), lambda e: True, first=0.01, cap=0.01,
                              sleep=record, budget=budget) == "ok"
    # Tokens: 2 (the first try's tenth is over the burst). Retries 1 and 2
    # take them; retry 3 waits half a second for its token (2 a second),
    # retry 4 a second: each beside its backoff of up to 0.01 s.
    assert len(waits) == 4 and all(w <= 0.01 for w in waits[:2])
    assert 0.5 <= waits[2] <= 0.51 and 1.0 <= waits[3] <= 1.01
    after = REGISTRY.get_sample_value("paiju_retry_budget_waits_total",
                                      {"operation": "test_budget"})
    assert after == before + 2
    # The last retry was answered: its token came back (from -2 to -1 and
    # what the clock gave meanwhile: none here).
    assert budget.tokens == pytest.approx(-1.0)
