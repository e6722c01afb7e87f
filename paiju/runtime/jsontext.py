"""JSON text as paiju sends it to clients and on NATS: compact, UTF-8 kept
(``json.dumps(obj, ensure_ascii=False, separators=(",", ":"))``), made by
orjson (8× faster on events, docs/performance.md), falling back to the
standard library for what orjson refuses (integers beyond 64 bits)."""

from __future__ import annotations

import json
from typing import Any

import orjson


def dumps(obj: Any) -> str:
    """``obj`` as compact JSON text (dict keys that are not strings become
    strings, as with ``json.dumps``)."""
    try:
        return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def dumpb(obj: Any) -> bytes:
    """:func:`dumps` as UTF-8 bytes (what goes on NATS), without the text
    made in between."""
    try:
        return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()


def loads(text: str | bytes) -> Any:
    """The value of JSON ``text``; ``json.JSONDecodeError`` (orjson's is one)
    if it is malformed."""
    return orjson.loads(text)
