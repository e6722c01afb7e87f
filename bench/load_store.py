"""The store and the service metrics of a bench/load.py platform.

:func:`choose_store` picks the database the platform's lobby, ledger and
table records use: a fresh PostgreSQL database per run (as the shipped
deploy/ manifests run them, on PostgreSQL) where one is given or reachable,
else SQLite files in the platform's data folder (``paiju up``'s default).
:func:`scrape` keeps every service's ``/metrics`` at the end of a run and
sums up what was refused and what was slow.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import socket
import urllib.request
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

#: Where a PostgreSQL is looked for when none is named (the tests' server).
DEFAULT_POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"


@dataclass
class Store:
    """The platform's database: ``url`` (``None``: SQLite files in the data
    folder) and ``label``, the words the report prints (``sqlite``,
    ``postgresql 127.0.0.1:5432/paiju_load_…``)."""

    url: str | None
    label: str

    def drop(self) -> None:
        """Drop the run's PostgreSQL database (nothing for SQLite)."""
        if self.url is not None:
            asyncio.run(_admin(self.url, "DROP DATABASE IF EXISTS {db} WITH (FORCE)"))


def _reachable(url: str) -> bool:
    u = make_url(url)
    try:
        with socket.create_connection((u.host or "127.0.0.1", u.port or 5432), timeout=1):
            return True
    except OSError:
        return False


async def _admin(url: str, statement: str) -> None:
    """Run ``statement`` (``{db}``: the database of ``url``, quoted) on the
    server of ``url``, connected to its ``postgres`` database."""
    import asyncpg  # type: ignore[import-untyped]

    u = make_url(url)
    conn = await asyncpg.connect(host=u.host or "127.0.0.1", port=u.port or 5432,
                                 user=u.username or "postgres", password=u.password,
                                 database="postgres", timeout=5)
    try:
        await conn.execute(statement.format(db=f'"{u.database}"'))
    finally:
        await conn.close()


def choose_store(choice: str, env: Mapping[str, str], log: Callable[[str], None]) -> Store:
    """The store for ``choice``: ``sqlite``; ``postgres`` (``PAIJU_TEST_POSTGRES_URL``
    or :data:`DEFAULT_POSTGRES`; ``RuntimeError`` when it cannot be reached);
    ``auto`` (that PostgreSQL when it answers, else SQLite); or a
    ``postgresql://`` URL. A PostgreSQL store is a database made for this run
    on that server (``paiju_load_<hex>``); :meth:`Store.drop` removes it."""
    if choice == "sqlite":
        return Store(None, "sqlite")
    base = choice if "://" in choice else env.get("PAIJU_TEST_POSTGRES_URL") or DEFAULT_POSTGRES
    if not _reachable(base):
        if choice == "auto":
            log(f"no PostgreSQL at {make_url(base).host}:{make_url(base).port}: SQLite")
            return Store(None, "sqlite")
        raise RuntimeError(f"PostgreSQL at {base} cannot be reached")
    name = f"paiju_load_{secrets.token_hex(4)}"
    url = make_url(base).set(database=name).render_as_string(hide_password=False)
    try:
        asyncio.run(_admin(url, "CREATE DATABASE {db}"))
    except Exception as e:
        if choice != "auto":
            raise
        log(f"PostgreSQL at {base} refused a new database ({e}): SQLite")
        return Store(None, "sqlite")
    u = make_url(url)
    return Store(url, f"postgresql {u.host}:{u.port or 5432}/{name}")


# -- the services' metrics -----------------------------------------------------------------

_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\} ([0-9.e+-]+|NaN|[+-]Inf)$')
_LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def samples(text: str) -> list[tuple[str, dict[str, str], float]]:
    """The labelled samples of a Prometheus text page: (name, labels, value)."""
    out = []
    for line in text.splitlines():
        m = _SAMPLE.match(line)
        if m:
            out.append((m.group(1), dict(_LABEL.findall(m.group(2))), float(m.group(3))))
    return out


def summarise(pages: Mapping[str, str]) -> dict[str, Any]:
    """From the ``/metrics`` pages of the services (name -> text): the gRPC
    calls that did not end ``OK`` or ``NOT_FOUND`` (an answer: sits nowhere,
    no last result) (``calls_failed``: ``"service side method
    code"`` -> count, side ``client`` or ``server``), the gateway's refusals
    by code (``gateway_errors``), the commands it turned away ``busy`` by
    reason (``gateway_shed``) and, per gateway command and per gRPC method
    served, how many took over 1 s and over 5 s (``slow``: name -> [n > 1 s,
    n > 5 s, n])."""
    failed: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    shed: Counter[str] = Counter()
    slow: dict[str, list[int]] = {}
    for service, text in pages.items():
        buckets: dict[str, dict[float, float]] = {}
        for name, labels, value in samples(text):
            if name in ("grpc_client_handled_total", "grpc_server_handled_total") and value \
                    and labels.get("grpc_code") not in ("OK", "NOT_FOUND"):
                side = "client" if "client" in name else "server"
                failed[f"{service} {side} {labels.get('grpc_method')} "
                       f"{labels.get('grpc_code')}"] += int(value)
            elif name == "paiju_gateway_errors_total" and value:
                errors[labels.get("code", "?")] += int(value)
            elif name == "paiju_gateway_shed_total" and value:
                shed[labels.get("reason", "?")] += int(value)
            elif name in ("paiju_gateway_command_duration_seconds_bucket",
                          "grpc_server_handling_seconds_bucket"):
                key = f"{service} {labels.get('cmd') or labels.get('grpc_method')}"
                le = labels.get("le", "+Inf")
                buckets.setdefault(key, {})[float("inf") if le == "+Inf" else float(le)] = value
        for key, b in buckets.items():
            total = b.get(float("inf"), 0.0)
            if not total:
                continue
            def over(t: float, b: dict[float, float] = b, total: float = total) -> int:
                below = max((v for le, v in b.items() if le <= t), default=0.0)
                return int(total - below)
            if over(1.0):
                slow[key] = [over(1.0), over(5.0), int(total)]
    return {"calls_failed": dict(failed), "gateway_errors": dict(errors),
            "gateway_shed": dict(shed), "slow": slow}


def scrape(host: str, ports: Mapping[str, int], folder: Path | None) -> dict[str, Any]:
    """Fetch ``http://host:port/metrics`` of every service of ``ports`` (name
    -> metrics port), keep each page in ``folder/metrics-<name>.txt`` when a
    folder is given, and return :func:`summarise` of them (a service that did
    not answer is left out)."""
    pages = {}
    for name, port in ports.items():
        try:
            with urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=5) as r:
                pages[name] = r.read().decode()
        except OSError:
            continue
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"metrics-{name}.txt").write_text(pages[name], encoding="utf-8")
    return summarise(pages)
