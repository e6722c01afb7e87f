"""A fuzz test of the client edge: a generated corpus of more than
10,000 frames (well-formed commands with wrong, odd or huge fields, and
malformed frames: not JSON, deep nesting, lone surrogates, binary frames,
oversize frames…) sent by many connections to a running gateway while bots
play games on it. Every frame gets one reply with a stable error code (never
``internal``), no fuzzing connection is dropped (only frames over the
WebSocket limit close theirs, with 1009), the bots' games end without a lost
connection, and the gateway logs no traceback."""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from collections import Counter
from typing import Any

import pytest
import websockets
from websockets.asyncio.client import ClientConnection

from paiju.tools.bots import run_bots
from tests.platform_procs import Platform

pytestmark = pytest.mark.timeout(600)

CONNECTIONS, FRAMES_EACH = 25, 420
#: Frames per second each fuzzing connection sends (below the rate limit of 20).
PACE = 18.0
CODE = re.compile(r"^[a-z][a-z0-9_]*$")
COMMANDS = ["ping", "login", "auth", "servers", "rooms", "watch_server", "sit", "stand",
            "ready", "leave", "act", "check", "hints", "view", "scores", "last_trick",
            "history", "replay", "rankings", "stats", "relief"]
FIELDS = ["name", "token", "server", "room", "seat", "action", "cards", "type", "limit",
          "game_id", "step", "link", "before", "game", "claim", "player", "window"]
#: Rooms the fuzzers may really sit in: not those of the bots (the cheapest servers).
ROOMS = ["daa-100-01", "daa-100-02", "shengji-4deck-100-01", "doudizhu-1000-03", "nowhere-01"]


def value(rng: random.Random, depth: int = 0) -> Any:
    """A JSON value of any kind, odd ones often."""
    kinds: list[Any] = [
        lambda: None, lambda: True, lambda: False, lambda: rng.randrange(-5, 10),
        lambda: 2 ** rng.randrange(31, 200), lambda: -(2 ** 63) - 1,
        lambda: rng.random() * 1e300, lambda: "", lambda: rng.choice(ROOMS),
        lambda: "".join(rng.choice("aZ9_-好牌🂡\u200b\x07 ")
                        for _ in range(rng.randrange(1, 40))),
        lambda: [rng.choice(["3S", "TD", "BJ", "AH", "1X"]) for _ in range(rng.randrange(30))],
        lambda: {"type": rng.choice(["play", "pass", "call", "bury", "declare", "x"]),
                 "cards": rng.choice([["3S"], ["BJ", "SJ"], ["ZZ"], "3S", [], [3]])},
    ]
    if depth < 3:
        kinds += [lambda: [value(rng, depth + 1) for _ in range(rng.randrange(4))],
                  lambda: {rng.choice(FIELDS): value(rng, depth + 1)
                           for _ in range(rng.randrange(4))}]
    return rng.choice(kinds)()


def command(rng: random.Random, cid: int) -> tuple[str, str | None]:
    """A frame shaped as a command with random fields; no expected code."""
    obj: dict[str, Any] = {"id": cid, "cmd": rng.choice([*COMMANDS, "nope", "Ping", ""])}
    for _ in range(rng.randrange(4)):
        obj[rng.choice(FIELDS)] = value(rng)
    return json.dumps(obj, ensure_ascii=rng.random() < 0.5), None


def malformed(rng: random.Random, cid: int) -> tuple[str | bytes, str | None]:
    """A malformed frame and the code its reply must have."""
    deep = rng.randrange(34, 5000)  # within 16 KiB in each use below
    pad = rng.randrange(16 * 1024 + 1, 60 * 1024)
    surrogate = rng.choice(["\\ud800", "\\udfff", "\\udbff\\u0041", "x\\udc00"])
    where = rng.randrange(4)
    with_surrogate = [
        f'{{"id": "{surrogate}", "cmd": "ping"}}',
        f'{{"id": {cid}, "cmd": "{surrogate}"}}',
        f'{{"id": {cid}, "cmd": "login", "name": "{surrogate}"}}',
        f'{{"id": {cid}, "cmd": "ping", "{surrogate}": 1}}',
    ][where]
    choices: list[tuple[str | bytes, str]] = [
        ("{not json", "bad_frame"), ("[1, 2]", "bad_frame"), ('"text"', "bad_frame"),
        ("", "bad_frame"), ("null", "bad_frame"), (f'{{"id": {cid}}}', "bad_frame"),
        ('{"id": true, "cmd": "ping"}', "bad_frame"), ('{"id": 1.5, "cmd": "ping"}', "bad_frame"),
        ('{"id": [1], "cmd": "ping"}', "bad_frame"), (f'{{"id": {cid}, "cmd": 5}}', "bad_frame"),
        ('{"id": 1, "cmd": "ping", "x": ' + "[" * deep + "]" * deep + "}", "bad_frame"),
        ("{" * deep, "bad_frame"),
        ('{"a":' * (deep // 2) + "1" + "}" * (deep // 2), "bad_frame"),
        (with_surrogate, "bad_frame"),
        (b"\xff\xfe\xfd", "bad_frame"), (b"\xc3\x28", "bad_frame"),
        ('{"id": 1, "cmd": "ping", "pad": "' + "x" * pad + '"}', "frame_too_large"),
        ("好" * (pad // 3 + 1), "frame_too_large"),
        (f'{{"id": {cid}, "cmd": "ping", "n": 1' + "0" * 4400 + "}", "bad_frame"),
        (f'{{"id": {cid}, "cmd": "nope"}}', "unknown_command"),
    ]
    frame, code = rng.choice(choices)
    if rng.random() < 0.2 and isinstance(frame, str):
        frame = frame.encode()  # the same as a binary frame
    return frame, code


def corpus(seed: int, n: int) -> list[tuple[str | bytes, str | None]]:
    """``n`` frames: commands and malformed frames, mixed; a ``login`` early
    on, so that most of them reach the commands of a signed-in player."""
    rng = random.Random(seed)
    frames: list[tuple[str | bytes, str | None]] = []
    for i in range(n):
        if i == n // 10:
            frames.append((json.dumps({"id": i, "cmd": "login", "name": f"fuzz-{seed}"}), None))
        elif rng.random() < 0.45:
            frames.append(malformed(rng, i))
        else:
            frames.append(command(rng, i))
    return frames


async def next_reply(ws: ClientConnection) -> dict[str, Any]:
    while True:
        msg = json.loads(await asyncio.wait_for(ws.recv(), timeout=30))
        if msg.get("type") == "reply":
            return dict(msg)


async def fuzz(url: str, seed: int, codes: Counter[str]) -> int:
    """Send the corpus of ``seed``, one frame per reply; check each reply."""
    frames = corpus(seed, FRAMES_EACH)
    async with websockets.connect(url, max_size=4 * 1024 * 1024) as ws:
        next_send = time.monotonic()
        for frame, want in frames:
            await asyncio.sleep(max(0.0, next_send - time.monotonic()))
            next_send = max(next_send, time.monotonic() - 1) + 1 / PACE
            await ws.send(frame)
            reply = await next_reply(ws)
            assert isinstance(reply.get("ok"), bool), reply
            code = "ok" if reply["ok"] else reply.get("error")
            assert isinstance(code, str) and CODE.fullmatch(code), reply
            assert code != "internal", (frame[:200], reply)
            if want is not None and code != "rate_limited":
                assert code == want, (frame[:200], reply)
            if not reply["ok"]:
                assert isinstance(reply.get("message"), str) and reply["message"], reply
            codes[code] += 1
    return len(frames)


async def oversize(url: str, seed: int) -> None:
    """A frame over the WebSocket limit: its connection is closed with 1009."""
    rng = random.Random(seed)
    async with websockets.connect(url) as ws:
        await ws.send("x" * rng.randrange(64 * 1024 + 1, 1024 * 1024))
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(ws.recv(), timeout=30)
        assert ws.close_code == 1009


@pytest.mark.slow  # about 60 s
async def test_fuzzed_frames_while_games_run(platform: Platform) -> None:
    bots = asyncio.create_task(run_bots(platform.gateway_url, ["doudizhu", "hunzhan"], 2, 1,
                                        (0.0, 0.05), seed=18, show_progress=False))
    codes: Counter[str] = Counter()
    sent = await asyncio.gather(*(fuzz(platform.gateway_url, seed, codes)
                                  for seed in range(CONNECTIONS)),
                                *(oversize(platform.gateway_url, seed) for seed in range(5)))
    assert sum(n for n in sent if n) >= 10_000
    summary = await bots
    assert summary["games_finished"] == {"doudizhu": 2, "hunzhan": 2}, summary
    assert summary["reconnects"] == 0, summary
    # The fuzzers reached the commands' own checks, not only the frame's.
    assert {"ok", "bad_frame", "frame_too_large", "bad_request", "unknown_command",
            "unauthenticated", "bad_token", "no_game"} <= set(codes), codes
    log = (platform.data / "gateway.log").read_text(errors="replace")
    assert "Traceback" not in log and '"exc"' not in log, log[-5000:]
