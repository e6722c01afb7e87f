"""The development keys and the check that refuses them outside development
mode, for :mod:`paiju.config` (which re-exports them)."""

from __future__ import annotations

from typing import Protocol


class KeyedConfig(Protocol):
    """What :func:`check_keys` reads of a service's :class:`paiju.config.Config`."""

    @property
    def service(self) -> str: ...
    @property
    def dev_mode(self) -> bool: ...
    @property
    def token_secret(self) -> str: ...
    @property
    def token_jwks_url(self) -> str | None: ...
    @property
    def grant_key(self) -> str: ...

#: The token key when none is configured: for development only (32 bytes, as
#: HS256 wants); production sets PAIJU_TOKEN_SECRET.
DEV_TOKEN_SECRET = "paiju-development-only-token-key"
#: The grant key when none is configured: for development only; production
#: sets PAIJU_GRANT_KEY.
DEV_GRANT_KEY = "dev-grant-key"


def check_keys(config: KeyedConfig) -> None:
    """Refuse development keys outside development mode: the
    gateway needs a token key of its own (``PAIJU_TOKEN_SECRET``; unset, or
    holding :data:`DEV_TOKEN_SECRET`, is refused unless ``PAIJU_TOKEN_JWKS_URL``
    is set, in which case the development key verifies nothing), the ledger a
    grant key of its own (``PAIJU_GRANT_KEY`` unset or :data:`DEV_GRANT_KEY`).
    Raises ``ValueError`` naming the variable; nothing in development mode
    (``PAIJU_DEV_MODE``)."""
    if config.dev_mode:
        return
    hint = "outside development mode (PAIJU_DEV_MODE) set a key of your own"
    dev_token = DEV_TOKEN_SECRET in config.token_secret.split(",")
    if config.service == "gateway" and dev_token and (
            config.token_secret != DEV_TOKEN_SECRET or not config.token_jwks_url):
        raise ValueError(f"PAIJU_TOKEN_SECRET is unset or holds the development key: {hint}"
                         " (or verify tokens by PAIJU_TOKEN_JWKS_URL only)")
    if config.service == "ledger" and config.grant_key == DEV_GRANT_KEY:
        raise ValueError(f"PAIJU_GRANT_KEY is unset or the development key: {hint}")
