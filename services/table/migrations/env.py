"""Alembic environment of the table service (version table alembic_version_table)."""

from paiju.runtime.db import run_alembic_env
from services.table.adapters.models import VERSION_TABLE, Base

run_alembic_env(Base.metadata, VERSION_TABLE)
