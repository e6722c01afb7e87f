"""Every method a paiju server serves is authorised and counted, however it was
registered (paiju.runtime.grpc_server: handlers wrapped once at registration, no server
interceptor): a real gRPC server on loopback with the test certificates, the
generated servicers of every proto, health and reflection."""

from __future__ import annotations

import grpc
from prometheus_client import REGISTRY

from paiju.ledger.v1 import ledger_pb2_grpc
from paiju.lobby.v1 import lobby_pb2_grpc
from paiju.runtime.service import Context
from paiju.security.authz import Rule
from paiju.table.v1 import table_pb2_grpc
from tests.fixtures import client_channel, running_service
from tests.foundation.test_authz import STANDARD, proto_methods

#: A method registered only by name (``add_registered_method_handlers``) and
#: one only through a generic handler, after the generated servicers.
LATE = "paiju.test.v1.Late"
LATE_METHODS = {f"/{LATE}/Registered", f"/{LATE}/Generic"}


async def echo(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
    return request


async def setup(ctx: Context) -> list[str]:
    """The generated servicers of the three protos (their base classes:
    ``UNIMPLEMENTED`` when let through), then :data:`LATE`'s two methods."""
    lobby_pb2_grpc.add_LobbyServiceServicer_to_server(
        lobby_pb2_grpc.LobbyServiceServicer(), ctx.server)  # type: ignore[abstract]
    table_pb2_grpc.add_TableServiceServicer_to_server(
        table_pb2_grpc.TableServiceServicer(), ctx.server)  # type: ignore[abstract]
    ledger_pb2_grpc.add_LedgerServiceServicer_to_server(
        ledger_pb2_grpc.LedgerServiceServicer(), ctx.server)  # type: ignore[abstract]
    ctx.server.add_registered_method_handlers(
        LATE, {"Registered": grpc.unary_unary_rpc_method_handler(echo)})
    ctx.server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
        LATE, {"Generic": grpc.unary_unary_rpc_method_handler(echo)}),))
    return ["paiju.lobby.v1.LobbyService", "paiju.table.v1.TableService",
            "paiju.ledger.v1.LedgerService", LATE]


async def codes(addr: str, caller: str, methods: set[str]) -> dict[str, grpc.StatusCode]:
    """The status of one call of each of ``methods`` (an empty request) by ``caller``."""
    out = {}
    async with client_channel(addr, caller) as channel:
        for method in sorted(methods):
            try:
                await channel.unary_unary(method)(b"", timeout=5)
                out[method] = grpc.StatusCode.OK
            except grpc.aio.AioRpcError as e:
                out[method] = e.code()
    return out


def denied_count(method: str) -> float:
    service, _, name = method.lstrip("/").rpartition("/")
    value = REGISTRY.get_sample_value("grpc_server_handled_total", {
        "grpc_type": "unary", "grpc_service": service, "grpc_method": name,
        "grpc_code": "PERMISSION_DENIED"})
    return value or 0.0


async def test_every_method_however_registered_is_refused_to_a_caller_no_rule_names() -> None:
    methods = proto_methods() | STANDARD | LATE_METHODS
    rules = {method: Rule(frozenset({"lobby"})) for method in methods}
    counted = denied_count(f"/{LATE}/Registered")
    async with running_service("table", setup, rules=rules) as addr:
        refused = await codes(addr, "gateway", methods)
        let_in = await codes(addr, "lobby", methods)
    assert {m for m, code in refused.items() if code != grpc.StatusCode.PERMISSION_DENIED
            } == set(), "served to a caller the rules do not name"
    # the same methods for the caller the rules name: through to the servicers
    assert {m for m, code in let_in.items() if code == grpc.StatusCode.PERMISSION_DENIED
            } == set()
    assert let_in[f"/{LATE}/Registered"] == let_in[f"/{LATE}/Generic"] == grpc.StatusCode.OK
    assert let_in["/paiju.table.v1.TableService/Act"] == grpc.StatusCode.UNIMPLEMENTED
    # the metrics wrap the check: a refused call is counted with its code
    assert denied_count(f"/{LATE}/Registered") == counted + 1
