"""NATS accounts of paiju's services: one NKey user per service, each allowed
only its own subjects (issue 18, "NATS accounts and permissions").

:data:`PERMISSIONS` is the one table of what each service may publish and
subscribe (the subjects of :mod:`paiju.subjects`, shared/spec/events.md
"Subjects", plus JetStream for the table and a private inbox per service).
Everything not in a service's lists is refused by the NATS server; a client
without a known NKey cannot connect at all.

:func:`write_credentials` (``paiju nats-config DIR``) makes one seed file per
service (``DIR/<service>.nk``, mode 0600) and ``DIR/auth.conf``, the server's
``authorization`` block naming each service's public key with its
permissions, for ``nats-server -c`` or an ``include``. A service reads its seed
from ``PAIJU_NATS_NKEY_SEED_FILE`` and connects with :func:`client_options`
(seed, inbox prefix ``_INBOX.<service>``, TLS from ``PAIJU_NATS_TLS_*``);
outside development mode it refuses to start without one
(:func:`check_credentials`). docs/operations.md shows the table
(:func:`markdown`; ``python -m paiju.natsauth docs/operations.md`` rewrites it).
"""

from __future__ import annotations

import json
import os
import secrets
import ssl
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nkeys

from paiju import subjects
from paiju.config import Config

#: The services that connect to NATS, each as its own user.
SERVICES = ("lobby", "table", "ledger", "gateway")

#: The file of the server's authorization block in a credentials folder.
AUTH_CONF = "auth.conf"


@dataclass(frozen=True)
class Permissions:
    """The subjects (NATS wildcards ``*`` and ``>``) a user may publish to and
    subscribe to; anything else is refused."""

    publish: tuple[str, ...]
    subscribe: tuple[str, ...]


def inbox_prefix(service: str) -> str:
    """``_INBOX.<service>``: where ``service``'s request replies come (nats-py
    ``inbox_prefix``), so that no other service can read them."""
    return f"_INBOX.{service}"


_ROOMS = subjects.lobby_rooms("*")
_TABLE = subjects.table_events("*")
_PLAYER = subjects.player_events("*")
_CONTROL = subjects.player_control("*")
_PRESENCE = subjects.presence("*")
_CHAT = subjects.chat("*")

#: The lobby reads the table registry bucket (its stream's info, its messages)
#: and nothing else of JetStream.
_REGISTRY_READ = ("$JS.API.STREAM.INFO.KV_paiju_table_instances",
                  "$JS.API.STREAM.MSG.GET.KV_paiju_table_instances")

#: What each service may publish and subscribe (besides its inbox,
#: ``_INBOX.<service>.>``, which every one subscribes). Who sends what is
#: events.md "Subjects": the lobby ``room_changed``; the table the public and
#: private game events, its durable game log (``paiju.gamelog.>``) and key-value
#: leases through the JetStream API (``$JS.API.>``; ``$KV.<bucket>.>`` puts;
#: ``$JS.ACK.>`` / ``$JS.FC.>`` the acknowledgements and flow-control replies of
#: its consumers); the ledger ``balance_changed`` from its outbox; the gateway
#: presence and ``session_started``. The gateway alone reads what goes to
#: clients; presence is read by the lobby and the table; player control
#: subjects are only among gateways. Nobody but the table writes to JetStream;
#: the lobby reads the table registry (services/lobby/registry.py).
PERMISSIONS: dict[str, Permissions] = {
    "lobby": Permissions(publish=(_ROOMS, *_REGISTRY_READ), subscribe=(subjects.PRESENCE_ALL,)),
    "table": Permissions(
        publish=(_TABLE, _PLAYER, "paiju.gamelog.>", "$JS.API.>", "$KV.*.>", "$JS.ACK.>",
                 "$JS.FC.>"),
        subscribe=(subjects.PRESENCE_ALL,)),
    "ledger": Permissions(publish=(_PLAYER,), subscribe=()),
    "gateway": Permissions(publish=(_PRESENCE, _CONTROL, _CHAT),
                           subscribe=(_ROOMS, _TABLE, _PLAYER, _CONTROL, _CHAT,
                                      subjects.PRESENCE_ALL)),
}


def allowed_publish(service: str) -> list[str]:
    """Every subject pattern ``service`` may publish to."""
    return list(PERMISSIONS[service].publish)


def allowed_subscribe(service: str) -> list[str]:
    """Every subject pattern ``service`` may subscribe to, its inbox included."""
    return [*PERMISSIONS[service].subscribe, inbox_prefix(service) + ".>"]


def matches(pattern: str, subject: str) -> bool:
    """Whether NATS subject ``subject`` (or a narrower pattern) falls under
    ``pattern`` (``*`` one token, ``>`` one or more trailing tokens)."""
    want, got = pattern.split("."), subject.split(".")
    for i, token in enumerate(want):
        if token == ">":
            return len(got) > i
        if i >= len(got) or got[i] == ">" or token not in ("*", got[i]):
            return False
    return len(got) == len(want)


def permitted(patterns: Iterable[str], subject: str) -> bool:
    """Whether any of ``patterns`` covers ``subject``."""
    return any(matches(p, subject) for p in patterns)


def new_seed() -> str:
    """A fresh NKey user seed (``SU…``, from 32 random bytes)."""
    return bytes(nkeys.encode_seed(secrets.token_bytes(32), nkeys.PREFIX_BYTE_USER)).decode()


def public_key(seed: str) -> str:
    """The public key (``U…``) of user seed ``seed``. ``ValueError`` if it is
    not an NKey user seed."""
    if not seed.startswith("SU"):
        raise ValueError("is not an NKey user seed (SU…)")
    try:
        kp = nkeys.from_seed(bytearray(seed.encode()))
        return bytes(kp.public_key).decode()
    except Exception as e:  # nkeys raises its own NkeysError kinds, and binascii's
        raise ValueError(f"is not a valid NKey seed ({type(e).__name__})") from None


def read_seed(path: Path) -> str:
    """The seed in file ``path`` (surrounding blanks removed). ``ValueError``
    if it cannot be read or holds no valid user seed."""
    try:
        seed = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"cannot be read ({e})") from None
    public_key(seed)
    return seed


def authorization(keys: Mapping[str, str], extra_users: Iterable[str] = ()) -> str:
    """The ``authorization { users = [...] }`` block of the NATS server
    configuration: one user per service of ``keys`` (service -> public key)
    with its :data:`PERMISSIONS`; ``extra_users`` are more user entries as
    written in the configuration (tests add an observer)."""
    lines = ["# paiju's NATS users: generated by `paiju nats-config` (paiju/natsauth.py).",
             "authorization {", "  users = ["]
    for service in SERVICES:
        if service not in keys:
            continue
        perms = {"publish": {"allow": allowed_publish(service)},
                 "subscribe": {"allow": allowed_subscribe(service)}}
        lines.append(f"    # {service}")
        lines.append(f"    {{nkey: {json.dumps(keys[service])}, "
                     f"permissions: {json.dumps(perms)}}}")
    lines += [f"    {u}" for u in extra_users]
    lines += ["  ]", "}", ""]
    return "\n".join(lines)


def seed_path(folder: Path, service: str) -> Path:
    """``<folder>/<service>.nk``: the seed file of ``service``."""
    return folder / f"{service}.nk"


def write_credentials(folder: Path, *, rotate: Iterable[str] = (),
                      extra_users: Iterable[str] = ()) -> dict[str, str]:
    """Make ``folder`` hold a seed file per service (kept when it exists, made
    anew for the services in ``rotate``) and ``auth.conf`` for those seeds.
    Returns service -> public key. ``ValueError`` names a seed file that holds
    no valid seed."""
    folder.mkdir(parents=True, exist_ok=True)
    rotate = set(rotate)
    unknown = rotate - set(SERVICES)
    if unknown:
        raise ValueError(f"no such service: {', '.join(sorted(unknown))}")
    keys = {}
    for service in SERVICES:
        path = seed_path(folder, service)
        if path.exists() and service not in rotate:
            try:
                seed = read_seed(path)
            except ValueError as e:
                raise ValueError(f"{path} {e}") from None
        else:
            seed = new_seed()
            tmp = path.with_suffix(".nk.tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="ascii") as f:
                f.write(seed + "\n")
            tmp.replace(path)
        keys[service] = public_key(seed)
    (folder / AUTH_CONF).write_text(authorization(keys, extra_users), encoding="utf-8")
    return keys


def prepare(folder: Path, extra_users: Iterable[str] = ()) -> Path:
    """:func:`write_credentials` in ``folder`` (seeds kept); returns ``folder``
    (``paiju up`` keeps its NATS users in ``PAIJU_DATA_DIR/nats``)."""
    write_credentials(folder, extra_users=extra_users)
    return folder


def seed_env(folder: Path | None, service: str) -> dict[str, str]:
    """``{"PAIJU_NATS_NKEY_SEED_FILE": <folder>/<service>.nk}``, or nothing
    without a credentials folder."""
    if folder is None:
        return {}
    return {"PAIJU_NATS_NKEY_SEED_FILE": str(seed_path(folder, service))}


def check_credentials(config: Config) -> None:
    """Refuse to run without NATS credentials outside development mode.
    Raises ``ValueError`` naming ``PAIJU_NATS_NKEY_SEED_FILE``."""
    if not config.dev_mode and not config.nats_nkey_seed_file:
        raise ValueError("PAIJU_NATS_NKEY_SEED_FILE is unset: outside development mode "
                         "(PAIJU_DEV_MODE) a service connects to NATS with its own NKey "
                         "(make them with `paiju nats-config DIR`)")


def tls_context(config: Config) -> ssl.SSLContext | None:
    """The TLS context for NATS (``PAIJU_NATS_TLS_CA``, and the client
    certificate ``PAIJU_NATS_TLS_CERT`` / ``PAIJU_NATS_TLS_KEY`` when the
    server wants one), or ``None`` without a CA."""
    if not config.nats_tls_ca:
        return None
    ctx = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=config.nats_tls_ca)
    if config.nats_tls_cert:
        ctx.load_cert_chain(config.nats_tls_cert, config.nats_tls_key or None)
    return ctx


def client_options(config: Config) -> dict[str, Any]:
    """The nats-py ``connect`` options of ``config.service``: its seed
    (``nkeys_seed_str``, read from ``PAIJU_NATS_NKEY_SEED_FILE`` when set), its
    inbox prefix, and ``tls`` when ``PAIJU_NATS_TLS_CA`` is set."""
    out: dict[str, Any] = {"inbox_prefix": inbox_prefix(config.service)}
    if config.nats_nkey_seed_file:
        out["nkeys_seed_str"] = read_seed(Path(config.nats_nkey_seed_file))
    ctx = tls_context(config)
    if ctx is not None:
        out["tls"] = ctx
    return out


BEGIN = "<!-- generated by `python -m paiju.natsauth docs/operations.md` from paiju/natsauth.py -->"
END = "<!-- end of the generated NATS permissions -->"


def markdown() -> str:
    """The permission table as docs/operations.md shows it."""
    rows = [BEGIN, "", "| service | may publish | may subscribe |", "| --- | --- | --- |"]
    for service in SERVICES:
        pub = ", ".join(f"`{p}`" for p in allowed_publish(service)) or "nothing"
        sub = ", ".join(f"`{p}`" for p in allowed_subscribe(service))
        rows.append(f"| {service} | {pub} | {sub} |")
    return "\n".join([*rows, "", END])


def rewrite_docs(path: Path) -> bool:
    """Put :func:`markdown` between the markers of ``path``; True if it changed."""
    text = path.read_text(encoding="utf-8")
    start, end = text.index(BEGIN), text.index(END) + len(END)
    new = text[:start] + markdown() + text[end:]
    path.write_text(new, encoding="utf-8")
    return new != text


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        print(f"{arg}: {'rewritten' if rewrite_docs(Path(arg)) else 'up to date'}")
