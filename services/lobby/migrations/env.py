"""Alembic environment of the lobby's tables (run by paiju.db.migrate at start)."""

from paiju.db import run_alembic_env
from services.lobby.adapters.store import metadata

run_alembic_env(metadata, "alembic_version_lobby")
