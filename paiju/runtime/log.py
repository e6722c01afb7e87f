"""JSON logs to standard output, one object per line.

Each line has ``ts`` (ISO 8601, UTC), ``level``, ``service``, ``logger``,
``msg`` and any ``extra={...}`` fields the caller passed; a line written
inside a span (tracing on, :mod:`paiju.runtime.tracing`) also ``trace_id`` and
``span_id`` (hex, as trace back-ends show them).
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

from paiju.runtime import tracing

_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """Formats a record as one JSON object."""

    def __init__(self, service: str) -> None:
        super().__init__()
        self.service = service

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "service": self.service,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                out[key] = value
        out.update(tracing.log_ids())
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str, ensure_ascii=False)


def setup(service: str, level: str = "INFO") -> logging.Logger:
    """Send every log record of the process to stdout as JSON; returns the
    service's logger (``paiju.<service>``)."""
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(JsonFormatter(service))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    return logging.getLogger(f"paiju.{service}")
