"""The gateway's ping settings (a ping every 5 s, a 5 s timeout)."""

from __future__ import annotations

import pytest

from paiju.config import load


def test_pings_every_5_s_with_a_5_s_timeout_by_default() -> None:
    cfg = load("gateway", {})
    assert (cfg.gateway_ping_interval_seconds, cfg.gateway_ping_timeout_seconds) == (5.0, 5.0)


def test_settings_are_read_and_checked() -> None:
    cfg = load("gateway", {"PAIJU_GATEWAY_PING_INTERVAL_SECONDS": "0.5",
                           "PAIJU_GATEWAY_PING_TIMEOUT_SECONDS": "2"})
    assert (cfg.gateway_ping_interval_seconds, cfg.gateway_ping_timeout_seconds) == (0.5, 2.0)
    with pytest.raises(ValueError, match="PAIJU_GATEWAY_PING_TIMEOUT_SECONDS='0'"):
        load("gateway", {"PAIJU_GATEWAY_PING_TIMEOUT_SECONDS": "0"})
    with pytest.raises(ValueError, match="PAIJU_GATEWAY_PING_TIMEOUT_SECONDS='soon'"):
        load("gateway", {"PAIJU_GATEWAY_PING_TIMEOUT_SECONDS": "soon"})
