"""OpenTelemetry tracing (placeholder while it is built)."""

from __future__ import annotations

from typing import Any


def client_interceptors() -> list[Any]:
    """The gRPC client interceptors of tracing (none yet)."""
    return []
