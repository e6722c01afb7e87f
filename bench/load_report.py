"""The printed lines of bench/load.py: one size's figures, its platform errors."""

from __future__ import annotations

import os
from typing import Any

from bench import load_recovery

GOAL_P99_MS = 100.0
#: Refusals a fair bot meets when its move races another event (a declaration
#: overtaken by a stronger one, a turn ended by a timeout, a game that just
#: ended): counted and shown, but apart from the platform's errors.
RACES = frozenset({"declare_too_weak", "not_your_turn", "wrong_phase", "not_eligible",
                   "no_game"})
#: The commands of a bot's way to its seat (the ramp's refusals are theirs).
SEATING = ("login", "auth", "watch_server", "sit", "ready")
#: Answers of the seating commands that are no failure of the platform: a
#: press of start in a room whose game has just started (the bot carries on),
#: a sit again after a reply that came too late (the seat is the bot's).
SEATING_RACES = frozenset({"room_started", "already_seated"})


def _ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.0f}×" if a is not None and b else "n/a"


def _setup(r: dict[str, Any]) -> str:
    n = r.get("instances", {"table": 1, "gateway": 1})
    return (f"{n['table']} table and {n['gateway']} gateway instances, "
            f"{r.get('event_loop', 'uvloop')}")


#: The answer of a gateway past its headroom (docs/operations.md "Admission
#: control"): a player turned away, told when to try again; counted and
#: shown apart from the platform's errors.
TURNED_AWAY = "busy"


def platform_errors(r: dict[str, Any]) -> int:
    """Errors of a run that are the platform's (every error but :data:`RACES`
    and :data:`TURNED_AWAY`)."""
    return sum(n for code, n in r["errors"].items()
               if code not in RACES and code != TURNED_AWAY)


def meets_goal(r: dict[str, Any]) -> bool:
    """Did the size hold: act round trip p99 under :data:`GOAL_P99_MS` and no
    platform error (a size that failed to run does not)?"""
    if "failed" in r:
        return False
    p99 = r["rtt_ms"]["p99"]
    return (p99 is not None and p99 < GOAL_P99_MS and platform_errors(r) == 0
            and not r["errors"].get(TURNED_AWAY))


def report(r: dict[str, Any]) -> list[str]:
    """The printed lines of one size."""
    rtt, nats_rtt, grpc_rtt = r["rtt_ms"], r["nats_rtt_ms"], r["grpc_rtt_ms"]
    errs = platform_errors(r)
    races = sum(n for code, n in r["errors"].items() if code in RACES)
    busy = r["errors"].get(TURNED_AWAY, 0)
    think = "–".join(f"{t:g}" for t in r["think_s"])
    ok = meets_goal(r)
    lines = [
        f"platform {r['tables']} tables ({r['clients']} clients"
        + (f", {r['seated']} seated in time" if r.get("seated", r["clients"]) < r["clients"]
           else "")
        + f", think {think} s): "
        f"act round trip p50 {rtt['p50']} ms, p99 {rtt['p99']} ms "
        f"(goal p99 < {GOAL_P99_MS:.0f} ms: {'met' if ok else 'NOT met'}); "
        f"{r['actions_per_s']} actions/s; errors {errs}"
        + (f" (plus {races} refusals of moves that raced the game)" if races else "")
        + (f" (plus {busy} commands turned away busy)" if busy else "")
        + (f" {r['errors']}" if r["errors"] else ""),
        f"  baseline bare NATS request-reply p50 {nats_rtt['p50']} ms p99 {nats_rtt['p99']} ms; "
        f"bare gRPC unary p50 {grpc_rtt['p50']} ms p99 {grpc_rtt['p99']} ms; "
        f"ratio platform/NATS p50 {_ratio(rtt['p50'], nats_rtt['p50'])} "
        f"p99 {_ratio(rtt['p99'], nats_rtt['p99'])}, platform/gRPC p50 "
        f"{_ratio(rtt['p50'], grpc_rtt['p50'])} p99 {_ratio(rtt['p99'], grpc_rtt['p99'])}",
        "  RSS MiB " + ", ".join(f"{n} {v}" for n, v in r["rss_mb"].items())
        + "; CPU % " + ", ".join(f"{n} {v}" for n, v in r["cpu_percent"].items())
        + f", bots {r['bots_cpu_percent']} (of {100 * (os.cpu_count() or 1)} on "
        f"{os.cpu_count()} cores; load average before the run {r.get('load_average')})",
    ]
    sent = r.get("rtt_ms_sent_in_window")
    if sent:
        lines.insert(1, f"  acts sent in the window (not before it): p50 {sent['p50']} ms, "
                     f"p99 {sent['p99']} ms of {sent['n']}; round trips over "
                     f"{GOAL_P99_MS:.0f} ms by second of the window (their end): "
                     f"{r.get('slow_seconds')}")
    if r.get("cpu_ms_per_action"):
        lines.append("  CPU ms per accepted action: " + ", ".join(
            f"{n} {v}" for n, v in r["cpu_ms_per_action"].items()))
    if r.get("cpu_mg_per_action"):
        lines.append(f"  the same in milligauges (gauge {r['gauge_ms']} ms, bench/gauge.py): "
                     + ", ".join(f"{n} {v}" for n, v in r["cpu_mg_per_action"].items()))
    if r.get("sign_in_after"):
        lines.append(load_recovery.line(r["sign_in_after"]))
    lines[0] = lines[0].replace("): act round trip", f"; {_setup(r)}): act round trip", 1)
    return lines + ramp_lines(r)


def ramp_lines(r: dict[str, Any]) -> list[str]:
    """The ramp's lines: the store, the refusals of the seating commands
    before the window (``login:unavailable`` …; :data:`SEATING_RACES` apart),
    when every bot sat, and the
    services' refused or slow calls (their ``/metrics`` at the end)."""
    ramp = r.get("ramp_refusals", {})
    seating = {k: n for k, n in sorted(ramp.items()) if k.split(":")[0] in SEATING
               and k.split(":")[-1] not in SEATING_RACES}
    raced = {k: n for k, n in sorted(ramp.items()) if k.split(":")[-1] in SEATING_RACES}
    seated_s = r.get("seated_s")
    lines = [f"  ramp ({r.get('store', 'sqlite')}): {r['seated']} of {r['clients']} seated in "
             "time" + (f", all seated {seated_s:.1f} s after the first login"
                       if seated_s is not None else ", not all seated")
             + f"; refusals of login/watch_server/sit/ready {sum(seating.values())}"
             + (f" {seating}" if seating else "")
             + (f" (and answers that raced: {raced})" if raced else "")]
    m = r.get("metrics") or {}
    if m.get("calls_failed"):
        lines.append(f"  gRPC calls not OK (whole run): {m['calls_failed']}")
    if m.get("gateway_shed"):
        lines.append(f"  turned away busy by the gateways (whole run): {m['gateway_shed']}")
    if m.get("slow"):
        lines.append("  slow (whole run; > 1 s, > 5 s, of n): " + ", ".join(
            f"{k} {v[0]}/{v[1]}/{v[2]}" for k, v in sorted(m["slow"].items())))
    return lines

