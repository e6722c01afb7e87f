"""paiju.runtime.log: one JSON object per line on stdout."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import pytest

from paiju.runtime import log as logsetup


@pytest.fixture(autouse=True)
def restore_root_logger() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def test_lines_are_json_with_the_standard_fields(capsys: pytest.CaptureFixture[str]) -> None:
    logger = logsetup.setup("ledger", "debug")
    logger.info("settled %s", "g-1", extra={"game_id": "g-1", "fee": 12})
    logging.getLogger("paiju.db").debug("ping")
    try:
        raise ValueError("boom")
    except ValueError:
        logger.exception("failed")
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    first, second, third = (json.loads(line) for line in lines)
    assert first["level"] == "info"
    assert first["service"] == "ledger"
    assert first["logger"] == "paiju.ledger"
    assert first["msg"] == "settled g-1"
    assert first["game_id"] == "g-1" and first["fee"] == 12
    assert first["ts"].endswith("+00:00") and "T" in first["ts"]
    assert (second["level"], second["logger"], second["msg"]) == ("debug", "paiju.db", "ping")
    assert third["level"] == "error"
    assert "ValueError: boom" in third["exc"]


def test_level_filters(capsys: pytest.CaptureFixture[str]) -> None:
    logger = logsetup.setup("lobby", "WARNING")
    logger.info("hidden")
    logger.warning("shown")
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["msg"] for line in lines] == ["shown"]


def test_a_line_inside_a_span_carries_its_trace_and_span_ids(
        capsys: pytest.CaptureFixture[str]) -> None:
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from paiju.runtime import tracing

    exporter = InMemorySpanExporter()
    tracing.enable("table", "table-1", SimpleSpanProcessor(exporter))
    try:
        logger = logsetup.setup("table")
        logger.info("outside")
        with tracing.span("work"):
            logger.info("inside")
            headers = tracing.headers()
    finally:
        tracing.disable()
    outside, inside = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    (span,) = exporter.get_finished_spans()
    assert "trace_id" not in outside and "span_id" not in outside
    assert inside["trace_id"] == f"{span.context.trace_id:032x}"
    assert inside["span_id"] == f"{span.context.span_id:016x}"
    # the W3C header an event published there carries
    assert headers is not None and list(headers) == ["traceparent"]
    version, trace_id, span_id, flags = headers["traceparent"].split("-")
    assert (version, trace_id, span_id) == ("00", inside["trace_id"], inside["span_id"])
    assert int(flags, 16) & 1  # sampled
    assert span.resource.attributes["service.name"] == "paiju-table"


def test_tracing_is_off_unless_configured() -> None:
    from paiju.runtime import tracing

    assert not tracing.setup("table", "table-1", "")
    assert not tracing.enabled()
    assert tracing.client_interceptors() == [] and tracing.server_interceptors() == []
    with tracing.span("nothing") as s:
        assert not s.is_recording() and tracing.headers() is None
