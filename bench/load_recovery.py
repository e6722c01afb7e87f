"""After the load: how soon a fresh sign-in is answered quickly again.

Once the bots of a size have stopped, a new client connects and signs in,
again and again, until one sign-in (connect and ``login``) is answered ``ok``
in under :data:`GOAL_SECONDS`, for at most :data:`WITHIN_SECONDS`. A platform
that collapsed into a retry storm is still working off its backlog then; one
that turned the crowd away answers at once (Google SRE, "Handling Overload":
recovery after the spike is part of the overload behaviour).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import Any

from paiju.tools.botclient import BotError, Client

#: A sign-in answered within this many seconds counts as answered quickly.
GOAL_SECONDS = 1.0
#: How long after the bots stopped a quick sign-in must come (seconds).
WITHIN_SECONDS = 10.0
#: Pause between two tries (seconds).
PAUSE_SECONDS = 0.2


async def sign_in(url: str, timeout: float) -> tuple[str, float]:
    """One fresh connection's ``login``: ``(code, seconds)``, ``ok`` or its
    refusal's code (``timeout`` or the error's class where it got no answer)."""
    start = time.monotonic()
    client = Client(url, lambda ev: None)
    try:
        await asyncio.wait_for(client.connect(), timeout)
        left = max(0.1, timeout - (time.monotonic() - start))
        await asyncio.wait_for(client.call_now("login", name=f"after-{secrets.token_hex(4)}"),
                               left)
        return "ok", time.monotonic() - start
    except BotError as e:
        return e.code, time.monotonic() - start
    except TimeoutError:
        return "timeout", time.monotonic() - start
    except (OSError, ConnectionError) as e:
        return type(e).__name__, time.monotonic() - start
    finally:
        await client.close()


async def sign_in_after(url: str, within: float = WITHIN_SECONDS,
                        goal: float = GOAL_SECONDS) -> dict[str, Any]:
    """Sign in at ``url`` until one is ``ok`` in under ``goal`` seconds, for at
    most ``within`` seconds: ``{met, after_s (from the first try to the quick
    one, or None), tries, answers: {code: n}, last_s}``."""
    start = time.monotonic()
    answers: dict[str, int] = {}
    tries, last = 0, None
    while True:
        left = within - (time.monotonic() - start)
        if left <= 0:
            break
        code, seconds = await sign_in(url, min(left, 5.0))
        tries, last = tries + 1, seconds
        answers[code] = answers.get(code, 0) + 1
        if code == "ok" and seconds < goal:
            return {"met": True, "after_s": round(time.monotonic() - start, 2),
                    "tries": tries, "answers": answers, "last_s": round(seconds, 3)}
        await asyncio.sleep(PAUSE_SECONDS)
    return {"met": False, "after_s": None, "tries": tries, "answers": answers,
            "last_s": None if last is None else round(last, 3)}


def line(r: dict[str, Any]) -> str:
    """The printed line of :func:`sign_in_after`'s result."""
    if r["met"]:
        return (f"  after the bots stopped: a fresh sign-in answered in "
                f"{r['last_s'] * 1000:.0f} ms (goal < {GOAL_SECONDS * 1000:.0f} ms) "
                f"{r['after_s']} s after the first try, "
                f"{r['tries']} tries {r['answers']}")
    return (f"  after the bots stopped: NO fresh sign-in answered in under "
            f"{GOAL_SECONDS * 1000:.0f} ms within {WITHIN_SECONDS:.0f} s "
            f"({r['tries']} tries {r['answers']})")
