"""The checks of paiju.config's settings: pydantic validators and annotated
types (addresses, ports, URLs, files, keys). Each raises ``ValueError`` with
what is wrong; paiju.config names the variable."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field
from pydantic_settings import NoDecode
from sqlalchemy.engine import make_url

from paiju.security.nkey_seeds import read_seed

#: The logging levels PAIJU_LOG_LEVEL takes.
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")

#: The shortest HMAC key a token key may be (bytes): what HS256 wants.
MIN_TOKEN_KEY_BYTES = 32

_HOST = r"(?:[A-Za-z0-9](?:[A-Za-z0-9_.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])"
_ADDRESS = re.compile(rf"(?:dns:///)?{_HOST}:\d{{1,5}}")
NATS_URL = re.compile(rf"(?:(?:nats|tls|ws|wss)://)?(?:[^\s@/,]+@)?{_HOST}(?::\d{{1,5}})?")


def pattern_check(pattern: re.Pattern[str], what: str) -> Callable[[str], str]:
    def check(value: str) -> str:
        items = [v.strip() for v in value.split(",") if v.strip()]
        if not items:
            raise ValueError(f"is not {what}")
        for item in items:
            if not pattern.fullmatch(item) or not _port_ok(item):
                raise ValueError(f"is not {what}" if len(items) == 1
                                 else f"holds {item!r}, which is not {what}")
        return ",".join(items)

    return check


def _port_ok(item: str) -> bool:
    tail = item.rsplit(":", 1)[-1]
    return not tail.isdigit() or int(tail) <= 65535


def check_host(value: str) -> str:
    if not re.fullmatch(rf"{_HOST}|[0-9A-Fa-f:]+", value):
        raise ValueError("is not a host name or IP address")
    return value


def check_database_url(value: str) -> str:
    try:
        driver = make_url(value).drivername
    except Exception:
        raise ValueError("is not a database URL (sqlite:///file.db, postgresql://…)") from None
    if not driver.startswith(("sqlite", "postgresql", "postgres")):
        raise ValueError(f"names {driver!r}; paiju runs on sqlite and postgresql")
    return value


def check_data_dir(value: Path) -> Path:
    if value.exists() and not value.is_dir():
        raise ValueError("exists and is not a folder")
    return value


def check_tls_dir(value: Path | None) -> Path | None:
    if value is not None and not value.is_dir():
        raise ValueError("is not a folder (of ca.pem, <service>.pem, <service>-key.pem)")
    return value


def check_readable_file(value: Path | None) -> Path | None:
    if value is not None and not value.is_file():
        raise ValueError("is not a readable file")
    return value


def check_seed_file(value: Path | None) -> Path | None:
    if value is not None:
        read_seed(value)  # ValueError: "cannot be read (…)" / "is not an NKey user seed"
    return value


def check_token_keys(value: str) -> str:
    keys = [k.strip() for k in value.split(",")]
    if not all(keys):
        raise ValueError("holds an empty key")
    if any(len(k.encode()) < MIN_TOKEN_KEY_BYTES for k in keys):
        raise ValueError(f"holds a key shorter than {MIN_TOKEN_KEY_BYTES} bytes (HS256)")
    return ",".join(keys)


def check_ai_token_keys(value: str) -> str:
    """:func:`check_token_keys`, where any key is given (empty: none)."""
    return check_token_keys(value) if value.strip() else ""


def check_jwks_url(value: str) -> str:
    if not re.fullmatch(r"https?://[^\s/?#]+(?:[/?#]\S*)?", value):
        raise ValueError("is not an http(s) URL")
    return value


def check_games(value: str) -> str:
    from paiju.rules.registry import parse_modules

    items = parse_modules(value)  # ValueError: "holds 'x', which is not a Python module name"
    if not items:
        raise ValueError("names no module")
    return ",".join(items)


def check_otlp_endpoint(value: str) -> str:
    if not re.fullmatch(rf"https?://{_HOST}(?::\d{{1,5}})?/?", value) or not _port_ok(value):
        raise ValueError("is not an http(s)://host:port URL of an OTLP/gRPC collector")
    return value


def check_log_level(value: str) -> str:
    if value.upper() not in LOG_LEVELS:
        raise ValueError(f"is not one of {', '.join(LOG_LEVELS)}")
    return value.upper()


def check_instance(value: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9_.:-]+", value):
        raise ValueError("may hold only letters, digits and _ . : -")
    return value


def check_port(value: Any) -> Any:
    if isinstance(value, str):
        if not value.strip().isdigit() or int(value) > 65535:
            raise ValueError("is not a port number (0-65535)")
        return int(value)
    return value


Port = Annotated[int, BeforeValidator(check_port), Field(ge=0, le=65535)]
Seconds = Annotated[float, Field(ge=0, allow_inf_nan=False)]
Positive = Annotated[float, Field(gt=0, allow_inf_nan=False)]
Address = Annotated[str, AfterValidator(pattern_check(_ADDRESS, "a host:port address"))]


def _replicas(value: str) -> str:
    items = value.split(",")
    if len(items) > 1 and any(i.startswith("dns:") for i in items):
        raise ValueError("mixes dns:/// with a list: give one dns:///name:port, or host:port "
                         "items")
    return value


#: A service's replicas: one address, a comma list, or one ``dns:///`` name.
Replicas = Annotated[str, AfterValidator(pattern_check(_ADDRESS, "a host:port address")),
                     AfterValidator(_replicas)]


def _address_list(value: Any) -> Any:
    """A comma-separated list of host:port addresses as a tuple (blanks dropped)."""
    if not isinstance(value, str):
        return value
    check = pattern_check(_ADDRESS, "a host:port address")
    return tuple(check(a.strip()) for a in value.split(",") if a.strip())


#: A comma-separated list of addresses (read as a tuple), or nothing.
Addresses = Annotated[tuple[str, ...], NoDecode, BeforeValidator(_address_list)]


#: The event loops a service process can run on (``PAIJU_EVENT_LOOP``).
EVENT_LOOPS = ("uvloop", "asyncio")


def check_event_loop(value: str) -> str:
    if value.lower() not in EVENT_LOOPS:
        raise ValueError(f"is not one of {', '.join(EVENT_LOOPS)}")
    return value.lower()
