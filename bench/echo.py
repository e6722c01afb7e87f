"""The bare transports the platform is built on, as baselines for its round trip.

``python bench/echo.py --nats URL --grpc-port PORT`` runs, in one process, a
NATS responder on the subject ``bench.echo`` (it answers every request with
its own payload) and a gRPC server with one unary method ``/bench.Echo/Echo``
(raw bytes in, the same bytes out; no protobuf, no interceptors). It prints
``ready`` once both serve and runs until SIGTERM.

:func:`measure` is the client side: ``count`` paced request-replies of each
kind from the calling process, returning their round trips in seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import time
from typing import Any

import grpc
import nats

SUBJECT = "bench.echo"
METHOD = "/bench.Echo/Echo"
PAYLOAD = b'{"type":"play","cards":["TS","TS"]}'


def _identity(b: bytes) -> bytes:
    return b


async def serve(nats_url: str, grpc_port: int) -> None:
    """Serve both echoes until SIGTERM / SIGINT."""
    nc = await nats.connect(nats_url)

    async def on_msg(msg: Any) -> None:
        await msg.respond(msg.data)

    await nc.subscribe(SUBJECT, cb=on_msg)

    async def echo(request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
        return request

    server = grpc.aio.server()
    handler = grpc.method_handlers_generic_handler("bench.Echo", {
        "Echo": grpc.unary_unary_rpc_method_handler(
            echo, request_deserializer=_identity, response_serializer=_identity)})
    server.add_generic_rpc_handlers((handler,))
    server.add_insecure_port(f"127.0.0.1:{grpc_port}")
    await server.start()
    print("ready", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await server.stop(0)
    await nc.close()


async def measure(nats_url: str, grpc_addr: str, count: int, interval: float,
                  stop: asyncio.Event | None = None) -> dict[str, list[float]]:
    """``count`` NATS request-replies and ``count`` gRPC unary calls, alternating,
    one every ``interval`` seconds (stopping early when ``stop`` is set);
    ``{"nats": [s, ...], "grpc": [s, ...]}``."""
    nc = await nats.connect(nats_url)
    channel = grpc.aio.insecure_channel(grpc_addr)
    call = channel.unary_unary(METHOD, request_serializer=_identity,
                               response_deserializer=_identity)
    out: dict[str, list[float]] = {"nats": [], "grpc": []}
    try:
        for _ in range(3):  # warm the connections
            await nc.request(SUBJECT, PAYLOAD, timeout=5)
            await call(PAYLOAD, timeout=5)
        for _ in range(count):
            if stop is not None and stop.is_set():
                break
            t = time.perf_counter()
            await nc.request(SUBJECT, PAYLOAD, timeout=5)
            out["nats"].append(time.perf_counter() - t)
            t = time.perf_counter()
            await call(PAYLOAD, timeout=5)
            out["grpc"].append(time.perf_counter() - t)
            await asyncio.sleep(interval)
    finally:
        await channel.close()
        await nc.close()
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the echo servers (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nats", required=True, help="NATS URL")
    parser.add_argument("--grpc-port", type=int, required=True)
    args = parser.parse_args(argv)
    asyncio.run(serve(args.nats, args.grpc_port))
    return 0


if __name__ == "__main__":
    sys.exit(main())
