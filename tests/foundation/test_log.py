"""paiju.log: one JSON object per line on stdout."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import pytest

from paiju import log as logsetup


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
