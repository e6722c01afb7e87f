"""Admission control at the edge: past its headroom the gateway turns new
work away with ``busy`` and keeps serving the games already running.

Two measures of headroom, both the gateway's own:

- its calls in flight to the services (lobby, ledger, tables): calls pile up
  when a service is slow or stopped, and each waits out its deadline;
- its event loop's lag: how late a timer of the loop fires (the process is
  short of CPU).

Past either limit, the commands that start new work (:data:`SHEDDABLE`:
signing in, sitting, ready, quick start, opening or joining a private room,
watching, lists, history, stats, replays and sharing them, a relief claim)
are refused with ``busy`` and a ``retry_after_ms`` that the clients wait,
with jitter, before they try again. The commands of a game already running
(``act``, ``view``, ``hints``, ``seat_view``, ``check``, ``scores``, ``last_trick``,
``chat``) and those that end work (``stand``, ``leave``, ``unwatch``) are never refused
here.
Pure: the caller feeds the measures in (AWS Builders' Library, "Using load
shedding to avoid overload"; Google SRE, "Handling Overload").
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

#: The commands refused with ``busy`` past the headroom: each starts new work.
SHEDDABLE = frozenset({
    "login", "auth", "sit", "ready", "quick_start", "watch", "watch_server", "servers",
    "rooms", "history", "rankings", "stats", "replay", "relief", "open_room", "join_code",
    "share_replay", "shares"})

#: What a client is told to wait before it tries again, by reason (ms).
RETRY_AFTER_MS = {"calls_in_flight": 2000, "loop_lag": 1000}

#: Seconds over which the largest loop lag counts.
LAG_WINDOW_SECONDS = 1.0


@dataclass(frozen=True)
class Shed:
    """A refusal: ``reason`` (``calls_in_flight`` or ``loop_lag``) and the
    ``retry_after_ms`` the client is told."""

    reason: str
    retry_after_ms: int


class Admission:
    """The gateway's headroom: at most ``max_calls`` calls in flight to the
    services, at most ``max_lag`` seconds of event-loop lag (the largest of
    the last :data:`LAG_WINDOW_SECONDS`)."""

    def __init__(self, max_calls: int, max_lag: float) -> None:
        self.max_calls = max_calls
        self.max_lag = max_lag
        self._lags: deque[tuple[float, float]] = deque()

    def lag_seen(self, now: float, lag: float) -> None:
        """The loop ran a timer ``lag`` seconds late at ``now`` (monotonic s)."""
        lags = self._lags  # lags falling from the front: the front is the largest
        while lags and lags[-1][1] <= lag:
            lags.pop()
        lags.append((now, lag))
        while lags[0][0] <= now - LAG_WINDOW_SECONDS:
            lags.popleft()

    def lag(self, now: float) -> float:
        """The largest lag seen in the window ending at ``now`` (seconds)."""
        for at, lag in self._lags:
            if at > now - LAG_WINDOW_SECONDS:
                return lag
        return 0.0

    def check(self, command: str, now: float, calls: int) -> Shed | None:
        """``None`` where ``command`` may run at ``now`` (monotonic s) with
        ``calls`` calls in flight to the services, else why it is refused."""
        if command not in SHEDDABLE:
            return None
        if calls >= self.max_calls:
            return Shed("calls_in_flight", RETRY_AFTER_MS["calls_in_flight"])
        if self.lag(now) > self.max_lag:
            return Shed("loop_lag", RETRY_AFTER_MS["loop_lag"])
        return None
