"""Frames of the client protocol (docs/client-protocol.md): parsing commands,
building replies, the gateway's error codes and limits."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import Any

#: Largest frame the gateway reads as a command (bytes); larger ones get
#: ``frame_too_large`` and the connection stays.
MAX_FRAME = 16 * 1024
#: Largest frame the WebSocket layer accepts at all (bytes): a larger one
#: closes the connection with 1009 (message too big), as WebSocket servers do.
MAX_WS_FRAME = 64 * 1024
#: Deepest nesting of arrays and objects a frame may have (the protocol needs 3).
MAX_DEPTH = 16
#: Messages that may wait for a client before it is cut off as slow.
SEND_QUEUE = 1000
#: Commands per second per connection, and the burst allowed.
RATE, BURST = 20.0, 40.0
#: A command ``id``: a string of at most MAX_ID_CHARS characters, or an
#: integer of at most as many decimal digits (below MAX_ID_INT in size).
MAX_ID_CHARS = 64
MAX_ID_INT: int = 10**MAX_ID_CHARS
#: Characters of a client's value an error message shows at most (then "…"),
#: and of a whole error message.
MAX_SHOWN = 64
MAX_MESSAGE = 256


def shown(value: Any) -> str:
    """``repr(value)`` for an error message, cut to :data:`MAX_SHOWN`
    characters with an ellipsis, so a refusal never echoes a client's input
    back unbounded."""
    text = repr(value)
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN - 1] + "…"


def good_id(cid: Any) -> bool:
    """True where ``cid`` is a command id the gateway echoes: a string of at most
    :data:`MAX_ID_CHARS` characters or an integer of at most as many digits."""
    if isinstance(cid, bool):
        return False
    if isinstance(cid, int):
        return -MAX_ID_INT < cid < MAX_ID_INT
    return isinstance(cid, str) and len(cid) <= MAX_ID_CHARS


class ClientError(Exception):
    """A command refused with a stable ``code`` and a message for people."""

    def __init__(self, code: str, message: str = "", retry_after_ms: int | None = None
                 ) -> None:
        message = message or code
        if len(message) > MAX_MESSAGE:
            message = message[:MAX_MESSAGE - 1] + "…"
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        #: How long the client should wait before it tries again (``busy``), ms.
        self.retry_after_ms = retry_after_ms


@dataclass(frozen=True)
class Command:
    """One parsed command: the client's ``id``, the ``cmd`` name and its fields."""

    id: str | int | None
    cmd: str
    args: dict[str, Any]


def parse(frame: str | bytes) -> Command:
    """Parse a frame; raises :class:`ClientError` (``frame_too_large``,
    ``bad_frame``: not one JSON object, nested deeper than :data:`MAX_DEPTH`,
    or holding a lone surrogate such as ``"\\ud800"``, which is no Unicode
    text), or :class:`CommandError` with the command ``id`` where one could be
    read."""
    # A text frame of at most MAX_FRAME characters is encoded once to count bytes.
    if len(frame) > MAX_FRAME or (isinstance(frame, str) and len(frame.encode()) > MAX_FRAME):
        raise ClientError("frame_too_large", f"frames are at most {MAX_FRAME} bytes")
    if isinstance(frame, bytes):  # a binary frame: UTF-8 JSON too
        try:
            frame = frame.decode()
        except UnicodeDecodeError as e:
            raise ClientError("bad_frame", "a frame is one JSON object in UTF-8") from e
    # Counting brackets is quick; the depth is measured only where it could pass.
    if frame.count("[") + frame.count("{") > MAX_DEPTH and _depth(frame) > MAX_DEPTH:
        raise ClientError("bad_frame", f"a frame nests at most {MAX_DEPTH} deep")
    try:
        obj = json.loads(frame)
    except (ValueError, RecursionError) as e:
        raise ClientError("bad_frame", "a frame is one JSON object") from e
    if not isinstance(obj, dict):
        raise ClientError("bad_frame", "a frame is one JSON object")
    cid = obj.get("id")
    # A lone surrogate comes only as a \\u escape (UTF-8 cannot hold one).
    if "\\u" in frame and not _unicode(obj):
        # Echo the id only where it is itself text that can be sent.
        raise CommandError(cid if good_id(cid) and (not isinstance(cid, str) or _unicode(cid))
                           else None,
                           ClientError("bad_frame", "a frame holds a lone surrogate "
                                       "(\\ud800-\\udfff), which is not Unicode text"))
    if cid is not None and not good_id(cid):
        raise ClientError("bad_frame", f"'id' is a string of at most {MAX_ID_CHARS} "
                          f"characters or an integer of at most {MAX_ID_CHARS} digits")
    cmd = obj.get("cmd")
    if not isinstance(cmd, str):
        raise CommandError(cid, ClientError("bad_frame", "a command needs a string 'cmd'"))
    return Command(cid, cmd, obj)


#: A JSON string (to drop brackets inside strings when measuring the depth).
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _depth(frame: str) -> int:
    """The deepest nesting of arrays and objects in ``frame`` (brackets inside
    strings not counted; for a frame that is not JSON, a guess that is
    never below the depth json.loads would reach)."""
    depth = deepest = 0
    for ch in _STRING.sub("", frame):
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def _unicode(obj: Any) -> bool:
    """True where every string in ``obj`` (keys too) is Unicode text (no lone
    surrogates), so that it can be sent back as UTF-8."""
    try:
        json.dumps(obj, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        return False
    return True


class CommandError(Exception):
    """A :class:`ClientError` for a frame whose ``id`` could be read."""

    def __init__(self, cid: str | int | None, error: ClientError) -> None:
        super().__init__(str(error))
        self.id = cid
        self.error = error


def reply(cid: str | int | None, **data: Any) -> dict[str, Any]:
    """A successful reply to command ``cid``."""
    return {"id": cid, "type": "reply", "ok": True, **data}


def error(cid: str | int | None, code: str, message: str,
          retry_after_ms: int | None = None) -> dict[str, Any]:
    """A refusal of command ``cid`` with a stable ``code`` (and, for ``busy``,
    the ``retry_after_ms`` to wait before trying again)."""
    out = {"id": cid, "type": "reply", "ok": False, "error": code, "message": message}
    if retry_after_ms is not None:
        out["retry_after_ms"] = retry_after_ms
    return out


def field(args: dict[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    """``args[name]`` checked to be of ``kind``; ``bad_request`` otherwise."""
    value = args.get(name)
    if (isinstance(value, bool) and kind is not bool) or not isinstance(value, kind):
        raise ClientError("bad_request", f"'{name}' is missing or of the wrong type")
    return value


def now_ms() -> int:
    """Unix time in milliseconds."""
    return int(time.time() * 1000)


class TokenBucket:
    """Rate limit: ``rate`` tokens per second up to ``burst``; ``take()`` is
    False when the bucket is empty. ``clock`` is injectable for tests."""

    def __init__(self, rate: float = RATE, burst: float = BURST,
                 clock: Any = time.monotonic) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.tokens = burst
        self.last = clock()

    def take(self) -> bool:
        """Spend one token if there is one."""
        t = self.clock()
        self.tokens = min(self.burst, self.tokens + (t - self.last) * self.rate)
        self.last = t
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True
