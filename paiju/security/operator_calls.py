"""Operators' calls (``paiju admin``): who made them, the log line
and the counter every one of them gets.

A person's tools call the services as the ``operator`` identity (its
certificate, paiju/security/identity.py; the RPCs only it may call are in
paiju/security/authz.py). All operators share that certificate, so each call also
names the person in the gRPC metadata :data:`HEADER` (``paiju admin --by``,
default the login name): a name the operator gives, kept with what it did
(the journal of an adjustment, the record of a voided game) and logged, not
a second check of who it is.

:class:`paiju.security.authz.Authorizer` calls :func:`observed` for every call
whose caller is ``operator``: one log line (``operator call``: method,
operator, outcome) and one count in ``paiju_operator_actions_total{method,
outcome}`` (``outcome`` ``ok``, ``error`` (the call failed with a status) or
``denied`` (its rule does not name the operator)).
"""

from __future__ import annotations

import logging
from typing import Any

import grpc
from prometheus_client import Counter

log = logging.getLogger("paiju.operator")

#: gRPC metadata key naming the person behind an operator call.
HEADER = "x-paiju-operator"
#: Longest operator name kept (longer ones are cut).
MAX_NAME = 64

ACTIONS = Counter("paiju_operator_actions_total",
                  "Calls made with the operator identity (paiju admin), by method and outcome.",
                  ["method", "outcome"])


def who(context: grpc.aio.ServicerContext[Any, Any]) -> str:
    """The operator's name from the call's metadata (:data:`HEADER`), at most
    :data:`MAX_NAME` characters; ``"operator"`` where none was given."""
    for key, value in context.invocation_metadata() or ():
        if key == HEADER:
            name = value if isinstance(value, str) else value.decode(errors="replace")
            name = "".join(c for c in name if c.isprintable()).strip()[:MAX_NAME]
            if name:
                return name
    return "operator"


def method_label(method: str) -> str:
    """``Service/Method`` of a full method name (``/paiju.ledger.v1.LedgerService/Adjust``
    → ``LedgerService/Adjust``): a bounded label."""
    service, _, name = method.lstrip("/").partition("/")
    return f"{service.rsplit('.', 1)[-1]}/{name}"


def observed(method: str, context: grpc.aio.ServicerContext[Any, Any], outcome: str) -> None:
    """Log and count one operator call of ``method`` that ended with ``outcome``
    (health checks, which reveal and change nothing, are not actions)."""
    if method.startswith("/grpc.health."):
        return
    label = method_label(method)
    ACTIONS.labels(label, outcome).inc()
    log.info("operator call", extra={"method": label, "operator": who(context),
                                        "outcome": outcome})
