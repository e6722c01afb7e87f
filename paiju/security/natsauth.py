"""NATS accounts of paiju's services: one NKey user per service, and one per
gateway replica, each allowed only its own subjects.

:data:`PERMISSIONS` is the one table of what each service may publish and
subscribe (the subjects of :mod:`paiju.runtime.subjects`, shared/spec/events.md
"Subjects", plus JetStream for the table and a private inbox per service).
Everything not in a service's lists is refused by the NATS server; a client
without a known NKey cannot connect at all.

:func:`write_credentials` (``paiju nats-config DIR``) makes one seed file per
user (``DIR/<user>.nk``, mode 0600) and ``DIR/auth.conf``, the server's
``authorization`` block naming each user's public key with its
permissions, for ``nats-server -c`` or an ``include``. The users are
``lobby``, ``table``, ``ledger``, ``ai`` (the ``paiju ai --pool`` workers,
which answer the lobby's seat requests) and a user per gateway replica named
after it (its ``PAIJU_INSTANCE``: ``gateway`` and ``gateway-2`` … under
``paiju up``, the pods ``gateway-0`` … in Kubernetes), allowed to publish its
own presence only (``paiju.presence.<name>.*``), so that no gateway can speak
for another's players. A service reads its seed
from ``PAIJU_NATS_NKEY_SEED_FILE`` and connects with :func:`client_options`
(seed, inbox prefix ``_INBOX.<user>``, TLS from ``PAIJU_NATS_TLS_*``);
outside development mode it refuses to start without one
(:func:`check_credentials`). docs/operations.md shows the table
(:func:`markdown`; ``python -m paiju.security.natsauth docs/operations.md`` rewrites it).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import ssl
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nkeys

from paiju.config import Config
from paiju.docs_markers import rewrite
from paiju.runtime import subjects
from paiju.security.nkey_seeds import public_key, read_seed

#: The services that connect to NATS, each as its own user (the gateway as a
#: user per replica, :func:`gateway_users`).
SERVICES = ("lobby", "table", "ledger", "gateway", "ai")

#: The users named after their service (the gateway's are per replica).
NAMED_USERS = ("lobby", "table", "ledger", "ai")

#: The gateway replicas' users a credentials folder holds by default: the
#: Kubernetes pods ``gateway-0`` … ``gateway-9`` (the gateway's
#: HorizontalPodAutoscaler goes up to 10 replicas, deploy/base/gateway.yaml).
GATEWAY_REPLICAS = 10

_GATEWAY_USER = re.compile(r"^gateway(-[A-Za-z0-9_-]+)?$")

#: The file of the server's authorization block in a credentials folder.
AUTH_CONF = "auth.conf"


@dataclass(frozen=True)
class Permissions:
    """The subjects (NATS wildcards ``*`` and ``>``) a user may publish to and
    subscribe to; anything else is refused. ``responses``: it may also answer
    the requests it receives (NATS ``allow_responses``: one reply to each
    received message's reply subject, nothing else)."""

    publish: tuple[str, ...]
    subscribe: tuple[str, ...]
    responses: bool = False


def inbox_prefix(user: str) -> str:
    """``_INBOX.<user>``: where NATS user ``user``'s request replies come
    (nats-py ``inbox_prefix``), so that no other user can read them."""
    return f"_INBOX.{user}"


_ROOMS = subjects.lobby_rooms("*")
_PRIVATE_ROOMS = subjects.lobby_private_room("*", "*")
_TABLE = subjects.table_events("*")
_PLAYER = subjects.player_events("*")
_CONTROL = subjects.player_control("*")
#: Stands for the user's own name in :data:`PERMISSIONS` (a gateway replica's).
OWN = "<own name>"
_OWN_PRESENCE = subjects.own_presence(OWN)
_CHAT = subjects.chat("*")
_AI_SEAT = subjects.ai_seat("*")

#: The lobby and the gateway read the table registry bucket (its stream's
#: info, its messages) and nothing else of JetStream.
_REGISTRY_READ = ("$JS.API.STREAM.INFO.KV_paiju_table_instances",
                  "$JS.API.STREAM.MSG.GET.KV_paiju_table_instances")

#: What each service may publish and subscribe (besides its inbox,
#: ``_INBOX.<user>.>``, which every one subscribes). Who sends what is
#: events.md "Subjects": the lobby ``room_changed`` (a private room's on its
#: own subject); the table the public and private game events, its durable
#: game log (``paiju.gamelog.>``) and key-value leases through the JetStream
#: API (``$JS.API.>``; ``$KV.<bucket>.>`` puts;
#: ``$JS.ACK.>`` / ``$JS.FC.>`` the acknowledgements and flow-control replies of
#: its consumers); the ledger ``balance_changed`` from its outbox; the gateway
#: its own presence (:data:`OWN` is the replica's name) and
#: ``session_started``. The gateway alone reads what goes to clients; presence
#: is read by the lobby and the table; player control subjects are only among
#: gateways. Nobody but the table writes to JetStream;
#: the lobby and the gateway read the table registry (paiju/runtime/table_instances.py).
#: The lobby asks the AI pool for seats (``paiju.ai.seat.<game>``); the ``ai``
#: user reads those requests and answers them, and publishes nothing else.
PERMISSIONS: dict[str, Permissions] = {
    "lobby": Permissions(publish=(_ROOMS, _PRIVATE_ROOMS, _AI_SEAT, *_REGISTRY_READ),
                         subscribe=(subjects.PRESENCE_ALL,)),
    "table": Permissions(
        publish=(_TABLE, _PLAYER, "paiju.gamelog.>", "$JS.API.>", "$KV.*.>", "$JS.ACK.>",
                 "$JS.FC.>"),
        subscribe=(subjects.PRESENCE_ALL,)),
    "ledger": Permissions(publish=(_PLAYER,), subscribe=()),
    "gateway": Permissions(publish=(_OWN_PRESENCE, _CONTROL, _CHAT, *_REGISTRY_READ),
                           subscribe=(_ROOMS, _PRIVATE_ROOMS, _TABLE, _PLAYER, _CONTROL, _CHAT,
                                      subjects.PRESENCE_ALL)),
    "ai": Permissions(publish=(), subscribe=(_AI_SEAT,), responses=True),
}


def gateway_users(count: int = GATEWAY_REPLICAS) -> tuple[str, ...]:
    """The users of gateway replicas ``gateway-0`` … ``gateway-<count - 1>``."""
    return tuple(f"gateway-{i}" for i in range(count))


def service_of(user: str) -> str:
    """The service NATS user ``user`` is: itself for ``lobby``, ``table``,
    ``ledger``; ``gateway`` for a gateway replica's user (``gateway``,
    ``gateway-<name>``). ``ValueError`` for any other name."""
    if user in NAMED_USERS:
        return user
    if _GATEWAY_USER.match(user):
        return "gateway"
    raise ValueError(f"no such NATS user: {user!r} (lobby, table, ledger, ai, "
                     "gateway[-<name>])")


def allowed_publish(user: str) -> list[str]:
    """Every subject pattern NATS user ``user`` may publish to."""
    return [p.replace(OWN, user) for p in PERMISSIONS[service_of(user)].publish]


def allowed_subscribe(user: str) -> list[str]:
    """Every subject pattern NATS user ``user`` may subscribe to, its inbox included."""
    return [*PERMISSIONS[service_of(user)].subscribe, inbox_prefix(user) + ".>"]


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


def authorization(keys: Mapping[str, str], extra_users: Iterable[str] = ()) -> str:
    """The ``authorization { users = [...] }`` block of the NATS server
    configuration: one entry per user of ``keys`` (user -> public key), in
    that order, with its :data:`PERMISSIONS`; ``extra_users`` are more user
    entries as written in the configuration (tests add an observer)."""
    lines = ["# paiju's NATS users: generated by `paiju nats-config` (paiju/security/natsauth.py).",
             "authorization {", "  users = ["]
    for user, key in keys.items():
        perms: dict[str, Any] = {"publish": {"allow": allowed_publish(user)},
                                 "subscribe": {"allow": allowed_subscribe(user)}}
        if PERMISSIONS[service_of(user)].responses:
            # Publishing nothing but one answer to each request received.
            perms["publish"] = {"deny": [">"]}
            perms["allow_responses"] = True
        lines.append(f"    # {user}")
        lines.append(f"    {{nkey: {json.dumps(key)}, permissions: {json.dumps(perms)}}}")
    lines += [f"    {u}" for u in extra_users]
    lines += ["  ]", "}", ""]
    return "\n".join(lines)


def seed_path(folder: Path, user: str) -> Path:
    """``<folder>/<user>.nk``: the seed file of NATS user ``user``."""
    return folder / f"{user}.nk"


def write_credentials(folder: Path, *, gateways: Iterable[str] = ("gateway",),
                      rotate: Iterable[str] = (),
                      extra_users: Iterable[str] = ()) -> dict[str, str]:
    """Make ``folder`` hold a seed file per user (kept when it exists, made
    anew for the users in ``rotate``): ``lobby``, ``table``, ``ledger``, ``ai`` and
    each gateway replica of ``gateways`` (names ``gateway`` or
    ``gateway-<name>``), and ``auth.conf`` for those seeds only. Returns
    user -> public key. ``ValueError`` names a seed file that holds no valid
    seed, or a user that is not one of these."""
    folder.mkdir(parents=True, exist_ok=True)
    users = (*NAMED_USERS, *dict.fromkeys(gateways))
    for user in users:
        service_of(user)
    rotate = set(rotate)
    unknown = rotate - set(users)
    if unknown:
        raise ValueError(f"no such user: {', '.join(sorted(unknown))}")
    keys = {}
    for user in users:
        path = seed_path(folder, user)
        if path.exists() and user not in rotate:
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
        keys[user] = public_key(seed)
    (folder / AUTH_CONF).write_text(authorization(keys, extra_users), encoding="utf-8")
    return keys


def prepare(folder: Path, extra_users: Iterable[str] = (),
            gateways: Iterable[str] = ("gateway",)) -> Path:
    """:func:`write_credentials` in ``folder`` (seeds kept) for ``gateways``;
    returns ``folder`` (``paiju up`` keeps its NATS users in
    ``PAIJU_DATA_DIR/nats``)."""
    write_credentials(folder, gateways=gateways, extra_users=extra_users)
    return folder


def seed_env(folder: Path | None, user: str) -> dict[str, str]:
    """``{"PAIJU_NATS_NKEY_SEED_FILE": <folder>/<user>.nk}``, or nothing
    without a credentials folder."""
    if folder is None:
        return {}
    return {"PAIJU_NATS_NKEY_SEED_FILE": str(seed_path(folder, user))}


def user_of(config: Config) -> str:
    """The NATS user ``config``'s process connects as: its service, or for
    a gateway its replica's name (``PAIJU_INSTANCE``)."""
    return config.instance if config.service == "gateway" else config.service


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
    """The nats-py ``connect`` options of ``config``'s user (:func:`user_of`): its seed
    (``nkeys_seed_str``, read from ``PAIJU_NATS_NKEY_SEED_FILE`` when set), its
    inbox prefix, and ``tls`` when ``PAIJU_NATS_TLS_CA`` is set."""
    out: dict[str, Any] = {"inbox_prefix": inbox_prefix(user_of(config))}
    if config.nats_nkey_seed_file:
        out["nkeys_seed_str"] = read_seed(Path(config.nats_nkey_seed_file))
    ctx = tls_context(config)
    if ctx is not None:
        out["tls"] = ctx
    return out


BEGIN = ("<!-- generated by `python -m paiju.security.natsauth docs/operations.md` "
         "from paiju/security/natsauth.py -->")
END = "<!-- end of the generated NATS permissions -->"


def markdown() -> str:
    """The permission table as docs/operations.md shows it."""
    rows = [BEGIN, "", "| user | may publish | may subscribe |", "| --- | --- | --- |"]
    for service in SERVICES:
        user = OWN if service == "gateway" else service
        pub = ", ".join(f"`{p}`" for p in PERMISSIONS[service].publish) or "nothing"
        if PERMISSIONS[service].responses:
            pub = "answers to the requests it receives only"
        sub = ", ".join(f"`{p}`" for p in (*PERMISSIONS[service].subscribe,
                                           inbox_prefix(user) + ".>"))
        name = f"gateway replica ({OWN}: `gateway-0` …)" if service == "gateway" else service
        rows.append(f"| {name} | {pub} | {sub} |")
    return "\n".join([*rows, "", END])


if __name__ == "__main__":
    rewrite(sys.argv[1:], BEGIN, END, markdown)
