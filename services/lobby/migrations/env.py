"""Alembic environment of the lobby's tables (run by paiju.runtime.db.migrate at start)."""

from paiju.runtime.db import run_alembic_env
from services.lobby.adapters.store import metadata

run_alembic_env(metadata, "alembic_version_lobby")
