"""Retries of calls to other services and stores, through tenacity.

Every retry waits a random time up to an exponential bound ("full jitter":
``uniform(0, min(cap, first · 2^n))`` seconds before try n+1, tenacity's
``wait_random_exponential``), so that the instances which failed together
(after an outage) do not all try again at the same moment; the bound stops
growing at ``cap`` seconds. Each retry is logged (WARNING, with the
operation and the error) and counted in ``paiju_retries_total{operation}``;
an operation that gives up is counted in ``paiju_retries_exhausted_total``
and raises its last error.

``operation`` is one of a fixed set of names per caller (``ledger_settle``,
``lobby_game_over``, ``record_store`` …), so the label stays bounded.

Retries also spend a budget (:class:`RetryBudget`, one per process): a
token bucket that every first try fills by a tenth of a token (and time by
ten tokens a second), every retry empties by one, and a retry that is
answered refills by one (the peer is back: the backlog drains at its pace).
With the bucket empty a retry waits for its token, so that while a peer
fails the retries of many operations add about a tenth to the calls they
make anyway, instead of multiplying them (Google SRE, "Handling Overload";
gRPC's retry throttling). Waits for the budget are counted in
``paiju_retry_budget_waits_total{operation}``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from prometheus_client import Counter
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_delay,
    stop_never,
    wait_random_exponential,
)
from tenacity.stop import StopBaseT

log = logging.getLogger("paiju.retries")

T = TypeVar("T")

RETRIES = Counter("paiju_retries_total",
                  "Calls tried again after a failure (jittered, capped backoff), by operation.",
                  ["operation"])
EXHAUSTED = Counter("paiju_retries_exhausted_total",
                    "Operations that gave up retrying (their last error was raised), "
                    "by operation.", ["operation"])

BUDGET_WAITS = Counter("paiju_retry_budget_waits_total",
                       "Retries that waited for the process's retry budget (its token "
                       "bucket was empty), by operation.", ["operation"])

#: Default first bound and cap of the backoff (seconds).
FIRST, CAP = 0.1, 5.0


class RetryBudget:
    """A token bucket of retries: each first try adds ``ratio`` tokens, the
    clock adds ``per_second``, an answered retry gives its token back, up to
    ``burst``; each retry takes one token, waiting for it where the bucket is
    empty. ``clock``: monotonic seconds."""

    def __init__(self, ratio: float = 0.1, per_second: float = 10.0, burst: float = 100.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.ratio, self.per_second, self.burst = ratio, per_second, burst
        self.clock = clock
        self.tokens = burst
        self._at = clock()

    def _refill(self) -> None:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self._at) * self.per_second)
        self._at = now

    def tried(self) -> None:
        """A first try was made: the budget grows by ``ratio``."""
        self._refill()
        self.tokens = min(self.burst, self.tokens + self.ratio)

    def answered_after_retry(self) -> None:
        """A retried call was answered: its token comes back."""
        self._refill()
        self.tokens = min(self.burst, self.tokens + 1.0)

    def wait_for_token(self) -> float:
        """Take a token: 0 where one is there, else the seconds until one
        will be (it is taken now, the bucket going below zero meanwhile)."""
        self._refill()
        self.tokens -= 1.0
        return 0.0 if self.tokens >= 0 else -self.tokens / self.per_second


#: This process's retry budget.
BUDGET = RetryBudget()


def policy(operation: str, retry_on: Callable[[BaseException], bool], *,
           give_up_after: float | None = None, first: float = FIRST, cap: float = CAP,
           on_retry: Callable[[], None] | None = None,
           sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
           budget: RetryBudget = BUDGET) -> AsyncRetrying:
    """The tenacity policy of ``operation``: retry while ``retry_on(error)``
    holds, waiting ``uniform(0, min(cap, first · 2^n))`` seconds, and longer
    where ``budget`` has no token yet; for ever (``give_up_after`` None) or
    until ``give_up_after`` seconds have passed since the first try. Each
    retry is logged, counted (and ``on_retry()`` called); the last error is
    raised as it is (not wrapped). ``sleep``: how the waits are waited (tests
    record them)."""
    def before_sleep(state: RetryCallState) -> None:
        RETRIES.labels(operation).inc()
        more = budget.wait_for_token()
        if more > 0:  # the budget is spent: wait for the token too
            BUDGET_WAITS.labels(operation).inc()
            state.upcoming_sleep += more
        if on_retry is not None:
            on_retry()
        error = state.outcome.exception() if state.outcome is not None else None
        delay = state.upcoming_sleep
        log.warning("%s failed (%s); try %d in %.2f s", operation, describe(error),
                    state.attempt_number + 1, delay,
                    extra={"operation": operation, "attempt": state.attempt_number})

    def after_give_up(state: RetryCallState) -> None:
        EXHAUSTED.labels(operation).inc()
        assert state.outcome is not None
        state.outcome.result()  # raises the last error

    stop: StopBaseT = stop_never if give_up_after is None else stop_after_delay(give_up_after)
    return AsyncRetrying(stop=stop, wait=wait_random_exponential(multiplier=first, max=cap),
                         retry=retry_if_exception(retry_on), before_sleep=before_sleep,
                         retry_error_callback=after_give_up, reraise=True, sleep=sleep)


async def call(operation: str, fn: Callable[[], Awaitable[T]],
               retry_on: Callable[[BaseException], bool], *,
               give_up_after: float | None = None, first: float = FIRST, cap: float = CAP,
               on_retry: Callable[[], None] | None = None,
               sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
               budget: RetryBudget = BUDGET) -> T:
    """``await fn()`` under :func:`policy` (same arguments); returns its
    result. ``fn`` may be any callable returning an awaitable (a lambda too)."""
    tries = 0

    async def attempt() -> T:
        nonlocal tries
        tries += 1
        answer = await fn()
        if tries > 1:
            budget.answered_after_retry()
        return answer

    budget.tried()
    result: T = await policy(operation, retry_on, give_up_after=give_up_after, first=first,
                             cap=cap, on_retry=on_retry, sleep=sleep, budget=budget)(attempt)
    return result


def describe(error: BaseException | None) -> str:
    """A short description of ``error`` for a log line (a gRPC status name
    where it has one)."""
    if error is None:
        return "no error"
    code = getattr(error, "code", None)
    if callable(code):
        try:
            return str(code().name)
        except Exception:
            pass
    return f"{type(error).__name__}: {error}"
