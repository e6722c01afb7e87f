"""Fixtures of the gateway tests: the whole platform as real processes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.platform_procs import Platform, running_platform


@pytest.fixture(scope="module")
def platform() -> Iterator[Platform]:
    """NATS and the four services, as ``paiju up`` runs them."""
    with running_platform() as p:
        yield p
