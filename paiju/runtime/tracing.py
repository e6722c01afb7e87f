"""OpenTelemetry tracing: off unless configured.

With ``PAIJU_TRACING_OTLP_ENDPOINT`` set, :func:`setup` makes the process's
tracer provider (resource ``service.name`` = ``paiju-<service>``,
``service.instance.id`` = the instance; sampler: parent-based, new traces
kept at ``PAIJU_TRACING_SAMPLE_RATIO``) exporting in batches over OTLP/gRPC
(the standard ``OTEL_BSP_*`` variables tune the batches). Then:

- every gRPC client channel (:func:`paiju.security.identity.secure_channel`) and
  server (:func:`paiju.runtime.service.serve`) has OpenTelemetry's interceptors: a
  CLIENT span per call, its context in the call's metadata, a SERVER span
  continuing it on the other side;
- an event published on NATS (:func:`paiju.runtime.natsconn.publish`) is a PRODUCER
  span ``publish <type>`` whose context travels in the message's headers
  (W3C ``traceparent``); the gateway's delivery of it to its clients is a
  CONSUMER span ``deliver <type>``, its child (:func:`consumer_span`);
- a client's WebSocket command at the gateway is the root: a SERVER span
  ``ws <command>`` (services.gateway.application.dispatch);
- JSON log lines written inside a span carry its ``trace_id`` and
  ``span_id`` (paiju.runtime.log).

Off (the default), nothing is made: no interceptors, no headers, and the
spans of :func:`span` are OpenTelemetry's no-op ones.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import propagate, trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased
from opentelemetry.trace import Span, SpanKind

#: The provider of this process while tracing is on (None: off).
_provider: TracerProvider | None = None


def setup(service: str, instance: str, endpoint: str, sample_ratio: float = 1.0) -> bool:
    """Turn tracing on for this process when ``endpoint`` (an OTLP/gRPC
    collector, ``http://`` plain or ``https://``) is set; returns whether it
    is on. Call once, before any channel or server is made."""
    if not endpoint:
        return False
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    exporter = OTLPSpanExporter(endpoint=endpoint, insecure=endpoint.startswith("http://"))
    enable(service, instance, BatchSpanProcessor(exporter), sample_ratio)
    return True


def enable(service: str, instance: str, processor: SpanProcessor,
           sample_ratio: float = 1.0) -> TracerProvider:
    """Turn tracing on with ``processor`` (tests: a simple processor of an
    in-memory exporter); returns the provider."""
    global _provider
    provider = TracerProvider(
        resource=Resource.create({"service.name": f"paiju-{service}",
                                  "service.instance.id": instance}),
        sampler=ParentBased(TraceIdRatioBased(sample_ratio)))
    provider.add_span_processor(processor)
    _provider = provider
    return provider


def disable() -> None:
    """Turn tracing off again (flushing what the provider holds)."""
    global _provider
    if _provider is not None:
        _provider.shutdown()
    _provider = None


def enabled() -> bool:
    """Whether tracing is on in this process."""
    return _provider is not None


def shutdown() -> None:
    """Export what is left (a stopping service); tracing stays as it is."""
    if _provider is not None:
        _provider.force_flush(timeout_millis=5000)


def tracer() -> trace.Tracer:
    """paiju's tracer (a no-op one while tracing is off)."""
    if _provider is None:
        return trace.NoOpTracer()
    return _provider.get_tracer("paiju")


def client_interceptors() -> list[Any]:
    """The gRPC aio client interceptors of tracing ([] while off)."""
    if _provider is None:
        return []
    from opentelemetry.instrumentation.grpc import aio_client_interceptors

    return list(aio_client_interceptors(tracer_provider=_provider))  # type: ignore[no-untyped-call]


def server_interceptors() -> list[Any]:
    """The gRPC aio server interceptor of tracing ([] while off)."""
    if _provider is None:
        return []
    from opentelemetry.instrumentation.grpc import aio_server_interceptor

    return [aio_server_interceptor(tracer_provider=_provider)]  # type: ignore[no-untyped-call]


@contextlib.contextmanager
def span(name: str, kind: SpanKind = SpanKind.INTERNAL,
         attributes: Mapping[str, str | int] | None = None,
         parent: otel_context.Context | None = None) -> Iterator[Span]:
    """A span ``name`` made current for the block (child of ``parent``, else
    of the current span); errors raised in the block are recorded on it."""
    with tracer().start_as_current_span(name, context=parent, kind=kind,
                                        attributes=dict(attributes or {})) as s:
        yield s


def headers() -> dict[str, str] | None:
    """The current span's context as NATS message headers (``traceparent``),
    or None while tracing is off or outside a span."""
    if _provider is None:
        return None
    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    return carrier or None


def context_of(message_headers: Mapping[str, str] | None) -> otel_context.Context | None:
    """The span context carried by a NATS message's headers (None without one)."""
    if _provider is None or not message_headers:
        return None
    return propagate.extract(dict(message_headers))


def consumer_span(event_type: str, subject: str,
                  message_headers: Mapping[str, str] | None
                  ) -> contextlib.AbstractContextManager[Span]:
    """The CONSUMER span of delivering an event received on ``subject``, a
    child of the PRODUCER span its headers carry."""
    return span(f"deliver {event_type}", SpanKind.CONSUMER,
                {"messaging.system": "nats", "messaging.destination.name": subject},
                parent=context_of(message_headers) or otel_context.Context())


def log_ids() -> dict[str, str]:
    """``trace_id`` and ``span_id`` (hex) of the current span for a log line;
    empty outside a recording span."""
    ctx = trace.get_current_span().get_span_context()
    if not ctx.is_valid:
        return {}
    return {"trace_id": format(ctx.trace_id, "032x"), "span_id": format(ctx.span_id, "016x")}
