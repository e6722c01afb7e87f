"""Tracing follows one ``act`` across the services: the platform
as real processes with PAIJU_TRACING_OTLP_ENDPOINT set to an OTLP/gRPC
collector of the test's own, which keeps the spans it is sent in memory.
One player's ``act`` through the gateway's WebSocket is one trace: the
gateway's root span ``ws act``, its gRPC client span of the table's ``Act``,
the table's server span of it, the table's NATS publish spans of the
events, and the gateway's delivery of them to its clients, each the child
of the one before, across the processes (gRPC metadata, NATS headers). A
player's ``leave`` then ends the game: its settlement is followed from the
table to the ledger, the ledger's outbox event and its delivery."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from opentelemetry.proto.trace.v1 import trace_pb2

from paiju.tools.bots import Client
from tests.fixtures import free_port
from tests.platform_procs import running_platform

pytestmark = [pytest.mark.timeout(300)]


@dataclass(frozen=True)
class Exported:
    """One span as the collector got it, with the service that sent it."""

    service: str
    span: trace_pb2.Span

    @property
    def kind(self) -> str:
        return str(trace_pb2.Span.SpanKind.Name(self.span.kind))


class Collector(trace_service_pb2_grpc.TraceServiceServicer):
    """An OTLP/gRPC trace receiver keeping every span in memory."""

    def __init__(self) -> None:
        self.spans: list[Exported] = []

    def Export(self, request: trace_service_pb2.ExportTraceServiceRequest,
               context: Any) -> trace_service_pb2.ExportTraceServiceResponse:
        for rs in request.resource_spans:
            attrs = {a.key: a.value.string_value for a in rs.resource.attributes}
            for ss in rs.scope_spans:
                self.spans += [Exported(attrs.get("service.name", ""), s) for s in ss.spans]
        return trace_service_pb2.ExportTraceServiceResponse()


@pytest.fixture
def collector(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Collector, int]]:
    # the services export every 100 ms (OpenTelemetry's own batch setting)
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "100")
    sink = Collector()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(  # type: ignore[no-untyped-call]
        sink, server)
    port = free_port()
    server.add_insecure_port(f"127.0.0.1:{port}")
    server.start()
    try:
        yield sink, port
    finally:
        server.stop(None)


async def one_act(url: str) -> int:
    """Three players sit and ready; the one to act bids through the
    gateway, then another leaves (an escape: the game ends and is settled).
    Returns the ``seq`` the act's reply gives."""
    clients = []
    events: list[dict[str, Any]] = []
    probe = Client(url, lambda ev: None)
    await probe.connect()
    await probe.call("login", name="tr-probe")
    server = next(s for s in (await probe.call("servers"))["servers"] if s["game"] == "doudizhu")
    room = next(r["room"] for r in (await probe.call("rooms", server=server["server"]))["rooms"]
                if r["state"] == "idle")
    await probe.close()
    try:
        for seat in range(3):
            c = Client(url, lambda ev, seat=seat: events.append({**ev, "_seat": seat}))
            await c.connect()
            await c.call("login", name=f"tr{seat}")
            await c.call("sit", room=room, seat=seat)
            clients.append(c)
        for c in clients:
            await c.call("ready")
        deadline = time.monotonic() + 60
        while not (turns := [e for e in events if e["type"] == "your_turn"]):
            assert time.monotonic() < deadline, "nobody's turn"
            await asyncio.sleep(0.05)
        actor = clients[turns[0]["_seat"]]
        action = (await actor.call("hints"))["actions"][0]
        reply = await actor.call("act", action=action)
        leaver = clients[(turns[0]["_seat"] + 1) % 3]
        assert (await leaver.call("leave"))["escaped"] is True
        deadline = time.monotonic() + 60
        # the settlement's balance_changed (the sign-in grants' have no game id)
        while not any(e["type"] == "balance_changed" and e.get("game_id") for e in events):
            assert time.monotonic() < deadline, "no balance_changed of the game"
            await asyncio.sleep(0.05)
        return int(reply["seq"])
    finally:
        for c in clients:
            await c.close()


def test_one_act_is_one_trace_across_gateway_table_and_back(
        collector: tuple[Collector, int]) -> None:
    sink, port = collector
    with running_platform({"TRACING_OTLP_ENDPOINT": f"http://127.0.0.1:{port}",
                           "TABLE_DEAL_INTERVAL_MS": "0"}) as p:
        asyncio.run(one_act(p.gateway_url))

        def trace_of_act() -> list[Exported] | None:
            roots = [e for e in sink.spans if e.span.name == "ws act"]
            if not roots:
                return None
            trace_id = roots[-1].span.trace_id
            spans = [e for e in sink.spans if e.span.trace_id == trace_id]
            if not any(e.kind == "SPAN_KIND_CONSUMER" for e in spans):
                return None
            return spans

        def trace_of_leave() -> list[Exported] | None:
            roots = [e for e in sink.spans if e.span.name == "ws leave"]
            spans = [e for e in sink.spans if roots and e.span.trace_id == roots[-1].span.trace_id]
            if not any(e.span.name == "deliver balance_changed" for e in spans):
                return None
            return spans

        deadline = time.monotonic() + 30
        while (spans := trace_of_act()) is None or trace_of_leave() is None:
            assert time.monotonic() < deadline, sorted({e.span.name for e in sink.spans})
            time.sleep(0.1)
        time.sleep(0.5)  # the rest of the trace's batches
        spans, settled = trace_of_act(), trace_of_leave()
        assert spans is not None and settled is not None
    by_id = {e.span.span_id: e for e in spans}

    def parent(e: Exported) -> Exported | None:
        return by_id.get(e.span.parent_span_id)

    root = next(e for e in spans if e.span.name == "ws act")
    assert root.service == "paiju-gateway" and root.kind == "SPAN_KIND_SERVER"
    assert root.span.parent_span_id == b""  # the command starts the trace
    act = "/paiju.table.v1.TableService/Act"
    client = next(e for e in spans if e.span.name == act and e.kind == "SPAN_KIND_CLIENT")
    assert client.service == "paiju-gateway" and parent(client) == root
    server = next(e for e in spans if e.span.name == act and e.kind == "SPAN_KIND_SERVER")
    assert server.service == "paiju-table" and parent(server) == client
    published = [e for e in spans if e.kind == "SPAN_KIND_PRODUCER"]
    assert published and all(e.service == "paiju-table" and parent(e) == server
                             for e in published), [(e.service, e.span.name) for e in published]
    assert any(e.span.name == "publish bid" for e in published)
    delivered = [e for e in spans if e.kind == "SPAN_KIND_CONSUMER"]
    assert delivered and all(e.service == "paiju-gateway" and parent(e) in published
                             for e in delivered)
    assert {e.span.name.removeprefix("deliver ") for e in delivered} <= {
        e.span.name.removeprefix("publish ") for e in published}

    # The escape's settlement in the leave's trace: table -> ledger -> outbox -> gateway.
    ids = {e.span.span_id: e for e in settled}
    settle = "/paiju.ledger.v1.LedgerService/Settle"
    called = next(e for e in settled if e.span.name == settle and e.kind == "SPAN_KIND_CLIENT")
    served = next(e for e in settled if e.span.name == settle and e.kind == "SPAN_KIND_SERVER")
    assert (called.service, served.service) == ("paiju-table", "paiju-ledger")
    assert ids.get(served.span.parent_span_id) == called
    outbox = [e for e in settled if e.span.name == "publish balance_changed"]
    assert outbox and all(e.service == "paiju-ledger" and ids.get(e.span.parent_span_id) == served
                          for e in outbox)
    got = [e for e in settled if e.span.name == "deliver balance_changed"]
    assert got and all(e.service == "paiju-gateway" and ids.get(e.span.parent_span_id) in outbox
                       for e in got)
