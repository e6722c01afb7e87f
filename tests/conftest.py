"""Shared test fixtures: where shared/ lies."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def shared_dir() -> Path:
    """The shared/ folder beside the repository (or ``PAIJU_SHARED_DIR``)."""
    return Path(os.environ.get("PAIJU_SHARED_DIR", REPO.parent / "shared"))


@pytest.fixture(scope="session")
def shared() -> Path:
    path = shared_dir()
    if not path.is_dir():
        pytest.skip(f"shared/ not found at {path} (set PAIJU_SHARED_DIR)")
    return path
