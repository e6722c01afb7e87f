"""Alembic environment of the ledger (run by paiju.runtime.db.migrate at start)."""

from paiju.runtime.db import run_alembic_env
from services.ledger.adapters.models import metadata

run_alembic_env(metadata, "alembic_version_ledger")
