"""The gateway's admission control as pure bookkeeping
(services.gateway.domain.admission): past its headroom, commands that start
new work are refused with ``busy`` and a retry-after; a running game's own
commands and those that end work never are. The real processes are in
test_overload.py."""

from __future__ import annotations

from services.gateway.domain.admission import Admission

NEW_WORK = ("login", "auth", "sit", "ready", "quick_start", "watch", "watch_server", "servers",
            "rooms", "history", "rankings", "replay", "share_replay", "shares")
GAME_AND_ENDINGS = ("act", "view", "hints", "check", "scores", "last_trick", "chat", "stand",
                    "leave", "unwatch", "ping", "revoke_share")


def test_within_headroom_every_command_runs() -> None:
    a = Admission(max_calls=10, max_lag=0.5)
    for cmd in NEW_WORK + GAME_AND_ENDINGS:
        assert a.check(cmd, now=100.0, calls=9) is None


def test_calls_in_flight_at_the_limit_refuse_new_work_only() -> None:
    a = Admission(max_calls=10, max_lag=0.5)
    for cmd in NEW_WORK:
        shed = a.check(cmd, now=100.0, calls=10)
        assert shed is not None and shed.reason == "calls_in_flight"
        assert shed.retry_after_ms == 2000
    for cmd in GAME_AND_ENDINGS:
        assert a.check(cmd, now=100.0, calls=500) is None


def test_loop_lag_counts_for_a_second_then_is_forgotten() -> None:
    a = Admission(max_calls=10, max_lag=0.5)
    a.lag_seen(100.0, 0.8)  # one late timer: 0.8 s
    a.lag_seen(100.1, 0.01)
    a.lag_seen(100.5, 0.02)
    assert a.lag(100.5) == 0.8
    shed = a.check("sit", now=100.5, calls=0)
    assert shed is not None and shed.reason == "loop_lag" and shed.retry_after_ms == 1000
    assert a.check("act", now=100.5, calls=0) is None
    # A second after the late timer, only the small lags are left.
    a.lag_seen(101.05, 0.01)
    assert a.lag(101.05) == 0.02
    assert a.check("sit", now=101.05, calls=0) is None


def test_a_later_larger_lag_replaces_the_smaller_ones() -> None:
    a = Admission(max_calls=10, max_lag=0.5)
    a.lag_seen(10.0, 0.2)
    a.lag_seen(10.2, 0.6)
    a.lag_seen(10.4, 0.3)
    assert a.lag(10.4) == 0.6
    assert a.lag(11.15) == 0.6  # 0.6 was seen at 10.2: still within the second
    assert a.lag(11.25) == 0.3  # 0.6 is out of the window, 0.3 (at 10.4) is not
    assert a.lag(11.5) == 0.0


def test_slow_acts_refuse_new_work_until_the_games_are_answered_in_time() -> None:
    a = Admission(max_calls=10, max_lag=0.5, max_act=0.05)
    for i in range(30):  # 30 acts in 1.5 s, 10 of them slow: the median is fast
        a.act_seen(100.0 + i * 0.05, 0.2 if i % 3 == 0 else 0.004)
    assert a.act_time(101.5) == 0.004
    assert a.check("ready", now=101.5, calls=0) is None
    for i in range(40):  # then 40 slow ones in 0.4 s: the median is 0.2 s
        a.act_seen(101.6 + i * 0.01, 0.2)
    assert a.act_time(102.0) == 0.2
    # Slow for less than two seconds: a burst, not yet an overload.
    assert a.check("ready", now=102.0, calls=0) is None
    for i in range(200):  # slow acts go on
        a.act_seen(102.0 + i * 0.01, 0.2)
    shed = a.check("ready", now=104.0, calls=0)
    assert shed is not None and shed.reason == "act_time" and shed.retry_after_ms == 2000
    assert a.check("act", now=104.0, calls=0) is None
    assert a.check("stand", now=104.0, calls=0) is None
    # Two seconds after the last slow act the window is empty: no refusal.
    assert a.check("ready", now=106.1, calls=0) is None


def test_too_few_acts_never_refuse() -> None:
    a = Admission(max_calls=10, max_lag=0.5, max_act=0.05)
    for i in range(19):
        a.act_seen(10.0 + i * 0.01, 3.0)
    assert a.act_time(10.5) == 0.0
    assert a.check("login", now=10.5, calls=0) is None
