"""Admission control at the edge: past its headroom the gateway turns new
work away with ``busy`` and keeps serving the games already running.

Three measures of headroom, all the gateway's own:

- its calls in flight to the services (lobby, ledger, tables): calls pile up
  when a service is slow or stopped, and each waits out its deadline;
- its event loop's lag: how late a timer of the loop fires (the process is
  short of CPU);
- how long the running games' moves take: the median answer time of its
  ``act`` commands over the last :data:`ACT_WINDOW_SECONDS` (at least
  :data:`ACT_MIN_SAMPLES` of them), past its limit for
  :data:`ACT_SUSTAIN_SECONDS`. A median far above its usual few
  milliseconds means the table instances (or the machine) are short of CPU:
  new games would only slow the running ones, so no new work is taken until
  the games in progress are answered in time again. It caps the games
  running at what the platform can serve.

Past any of them, the commands that start new work (:data:`SHEDDABLE`:
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
RETRY_AFTER_MS = {"calls_in_flight": 2000, "loop_lag": 1000, "act_time": 2000}

#: Seconds over which the largest loop lag counts.
LAG_WINDOW_SECONDS = 1.0

#: Seconds over which the acts' answer times count.
ACT_WINDOW_SECONDS = 2.0
#: The fewest acts in the window whose median decides (fewer: no refusal).
ACT_MIN_SAMPLES = 20
#: Seconds the median of the acts' answer times is kept before it is
#: worked out again.
ACT_MEDIAN_FOR_SECONDS = 0.1
#: Seconds the median must stay past its limit before new work is refused:
#: a burst (games starting together, a collection) is not an overload.
ACT_SUSTAIN_SECONDS = 2.0


@dataclass(frozen=True)
class Shed:
    """A refusal: ``reason`` (``calls_in_flight`` or ``loop_lag``) and the
    ``retry_after_ms`` the client is told."""

    reason: str
    retry_after_ms: int


class Admission:
    """The gateway's headroom: at most ``max_calls`` calls in flight to the
    services, at most ``max_lag`` seconds of event-loop lag (the largest of
    the last :data:`LAG_WINDOW_SECONDS`), at most ``max_act`` seconds for
    the median ``act`` (:meth:`act_time`) for longer than
    :data:`ACT_SUSTAIN_SECONDS`."""

    def __init__(self, max_calls: int, max_lag: float, max_act: float = float("inf")) -> None:
        self.max_calls = max_calls
        self.max_lag = max_lag
        self.max_act = max_act
        self._lags: deque[tuple[float, float]] = deque()
        self._acts: deque[tuple[float, float]] = deque()
        self._median: tuple[float, float] = (float("-inf"), 0.0)  # (until, median)
        self._slow_since: float | None = None  # when the median went past max_act

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

    def act_seen(self, now: float, seconds: float) -> None:
        """An ``act`` was answered at ``now`` (monotonic s) after ``seconds``."""
        self._acts.append((now, seconds))

    def act_time(self, now: float) -> float:
        """The median answer time (seconds) of the acts answered in the
        :data:`ACT_WINDOW_SECONDS` ending at ``now``; 0.0 with fewer than
        :data:`ACT_MIN_SAMPLES` of them. Worked out at most every
        :data:`ACT_MEDIAN_FOR_SECONDS`."""
        until, median = self._median
        if now < until:
            return median
        acts = self._acts
        while acts and acts[0][0] <= now - ACT_WINDOW_SECONDS:
            acts.popleft()
        times = sorted(t for _, t in acts)
        median = times[len(times) // 2] if len(times) >= ACT_MIN_SAMPLES else 0.0
        self._median = (now + ACT_MEDIAN_FOR_SECONDS, median)
        if median <= self.max_act:
            self._slow_since = None
        elif self._slow_since is None:
            self._slow_since = now
        return median

    def acts_slow(self, now: float) -> bool:
        """Whether the acts' median (:meth:`act_time`) has been past
        ``max_act`` for :data:`ACT_SUSTAIN_SECONDS` at ``now``."""
        self.act_time(now)
        return self._slow_since is not None and now - self._slow_since >= ACT_SUSTAIN_SECONDS

    def check(self, command: str, now: float, calls: int) -> Shed | None:
        """``None`` where ``command`` may run at ``now`` (monotonic s) with
        ``calls`` calls in flight to the services, else why it is refused."""
        if command not in SHEDDABLE:
            return None
        if calls >= self.max_calls:
            return Shed("calls_in_flight", RETRY_AFTER_MS["calls_in_flight"])
        if self.lag(now) > self.max_lag:
            return Shed("loop_lag", RETRY_AFTER_MS["loop_lag"])
        if self.acts_slow(now):
            return Shed("act_time", RETRY_AFTER_MS["act_time"])
        return None
