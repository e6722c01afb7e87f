"""The instances a start may be placed on (services/lobby/adapters/placement.py
``Tables.known``): an instance whose registry entry expired (as while
JetStream elects a leader) stays a candidate for ``REMEMBER_SECONDS``."""

from __future__ import annotations

import time

from services.lobby.adapters.placement import REMEMBER_SECONDS, Tables


def test_an_instance_that_left_the_registry_stays_known_a_while() -> None:
    registered = ["10.0.0.2:50051", "10.0.0.3:50051"]
    tables = Tables([], identity=None)
    tables.registered = lambda: registered
    assert tables.known() == registered
    registered = ["10.0.0.3:50051"]  # the other's entry expired
    assert tables.known() == ["10.0.0.3:50051", "10.0.0.2:50051"]
    tables._seen["10.0.0.2:50051"] = time.monotonic() - REMEMBER_SECONDS - 1
    assert tables.known() == ["10.0.0.3:50051"]
