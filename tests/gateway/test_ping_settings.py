"""The gateway's ping settings (issue 16: a ping every 5 s, a 5 s timeout)."""

from __future__ import annotations

import pytest

from services.gateway.keepalive import ping_seconds


def test_pings_every_5_s_with_a_5_s_timeout_by_default(monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    monkeypatch.delenv("PAIJU_GATEWAY_PING_INTERVAL_SECONDS", raising=False)
    monkeypatch.delenv("PAIJU_GATEWAY_PING_TIMEOUT_SECONDS", raising=False)
    assert ping_seconds() == (5.0, 5.0)


def test_settings_are_read_and_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAIJU_GATEWAY_PING_INTERVAL_SECONDS", "0.5")
    monkeypatch.setenv("PAIJU_GATEWAY_PING_TIMEOUT_SECONDS", "2")
    assert ping_seconds() == (0.5, 2.0)
    monkeypatch.setenv("PAIJU_GATEWAY_PING_TIMEOUT_SECONDS", "0")
    with pytest.raises(ValueError, match="PAIJU_GATEWAY_PING_TIMEOUT_SECONDS"):
        ping_seconds()
    monkeypatch.setenv("PAIJU_GATEWAY_PING_TIMEOUT_SECONDS", "soon")
    with pytest.raises(ValueError, match="not a number"):
        ping_seconds()
