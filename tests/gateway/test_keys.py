"""Development keys outside development mode: the real service
commands refuse to start, naming the variable, exit status 2."""

from __future__ import annotations

import subprocess
import sys

import pytest

from paiju.config import DEV_GRANT_KEY, DEV_TOKEN_SECRET, check_keys, load
from tests.fixtures import REPO, free_port, service_env

OWN_TOKEN_KEY = "a-token-key-of-this-operator-only-0123456789"


def start(service: str, **paiju: str) -> subprocess.CompletedProcess[str]:
    """``paiju <service>`` with ``paiju`` as its only PAIJU_* variables (it
    must stop at its configuration, so nothing else is needed)."""
    env = service_env(GRPC_PORT=str(free_port()), METRICS_PORT="0",
                      NATS_URL=f"nats://127.0.0.1:{free_port()}", **paiju)
    return subprocess.run([sys.executable, "-m", "paiju.cli", service], env=env, cwd=REPO,
                          capture_output=True, text=True, timeout=60, check=False,
                          stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("keys", [{}, {"TOKEN_SECRET": DEV_TOKEN_SECRET},
                                  {"TOKEN_SECRET": f"{OWN_TOKEN_KEY},{DEV_TOKEN_SECRET}"}],
                         ids=["unset", "development key", "development key among others"])
def test_the_gateway_refuses_to_start_without_a_token_key_of_its_own(
        keys: dict[str, str]) -> None:
    done = start("gateway", **keys)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith("paiju gateway: PAIJU_TOKEN_SECRET is unset or holds "
                                  "the development key"), done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("keys", [{}, {"GRANT_KEY": DEV_GRANT_KEY}], ids=["unset", "dev key"])
def test_the_ledger_refuses_the_development_grant_key(keys: dict[str, str]) -> None:
    done = start("ledger", **keys)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith("paiju ledger: PAIJU_GRANT_KEY is unset or the development "
                                  "key"), done.stderr


def test_development_mode_takes_the_development_keys() -> None:
    for service in ("gateway", "ledger"):
        check_keys(load(service, {"PAIJU_DEV_MODE": "1"}))


def test_own_keys_pass_and_other_services_need_none() -> None:
    check_keys(load("gateway", {"PAIJU_TOKEN_SECRET": OWN_TOKEN_KEY}))
    check_keys(load("ledger", {"PAIJU_GRANT_KEY": "an-operator-grant-key"}))
    for service in ("lobby", "table"):
        check_keys(load(service, {}))


def test_an_identity_provider_alone_needs_no_token_key() -> None:
    """With a JWKS the unset key is allowed: it then verifies nothing
    (services.gateway.adapters.auth.Verifier.from_config)."""
    idp = {"PAIJU_TOKEN_JWKS_URL": "https://idp.example/.well-known/jwks.json",
           "PAIJU_TOKEN_ISSUER": "https://idp.example/", "PAIJU_TOKEN_AUDIENCE": "paiju"}
    check_keys(load("gateway", idp))
    with pytest.raises(ValueError, match="PAIJU_TOKEN_SECRET"):
        check_keys(load("gateway", {**idp, "PAIJU_TOKEN_SECRET":
                                    f"{OWN_TOKEN_KEY},{DEV_TOKEN_SECRET}"}))


def test_a_jwks_needs_issuer_and_audience_and_ttl_stays_within_the_lifetime() -> None:
    with pytest.raises(ValueError, match="PAIJU_TOKEN_ISSUER and PAIJU_TOKEN_AUDIENCE"):
        load("gateway", {"PAIJU_TOKEN_JWKS_URL": "https://idp.example/jwks"})
    with pytest.raises(ValueError, match="PAIJU_TOKEN_MAX_LIFETIME_SECONDS"):
        load("gateway", {"PAIJU_TOKEN_TTL_SECONDS": "7200",
                         "PAIJU_TOKEN_MAX_LIFETIME_SECONDS": "3600"})
