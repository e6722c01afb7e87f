"""``paiju gateway``: WebSocket clients in, gRPC and NATS out.

Serves ``/ws`` (docs/client-protocol.md) and the web client's files on
``PAIJU_GATEWAY_PORT``, and the gRPC health service on ``PAIJU_GRPC_PORT``.
Ready while NATS is connected.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from websockets.asyncio.server import serve

from paiju.presence.publisher import PresencePublisher, new_gateway_id
from paiju.runtime import natsconn
from paiju.runtime.service import Context, run
from paiju.security import natsauth
from services.gateway.adapters.backends import Backends
from services.gateway.domain.protocol import MAX_WS_FRAME
from services.gateway.entrypoints.gateway import Gateway
from services.gateway.entrypoints.static import request_handler


async def setup(ctx: Context) -> Sequence[str]:
    """Connect NATS and the services, and start the WebSocket server."""
    cfg = ctx.config
    # Set once the gateway exists: after a reconnect every connection gets its view again.
    came_back: list[Callable[[], None]] = []

    def reconnected() -> None:
        for resync in came_back:
            resync()

    nc = await natsconn.connect(cfg.nats_url, ctx.health, name=f"gateway:{cfg.instance}",
                                auth=natsauth.client_options(cfg), on_reconnected=reconnected)
    presence = PresencePublisher(nc, new_gateway_id(cfg.instance), cfg.presence_heartbeat_seconds)
    gateway = Gateway(cfg, nc, Backends(cfg.lobby_addr, cfg.ledger_addr, ctx.identity), presence)
    came_back.append(gateway.resync)
    await presence.start()
    ctx.tasks.append(asyncio.create_task(gateway.watch_loop_lag()))
    # The client's files, gzip and ETags: computed once, here.
    process_request = request_handler()
    await gateway.spectators.start()
    ws_server = await serve(gateway.handler, cfg.host, cfg.gateway_port,
                            process_request=process_request, max_size=MAX_WS_FRAME,
                            # Pings are the session's own (services.gateway.adapters.keepalive).
                            close_timeout=2, ping_interval=None,
                            # Small JSON frames: compressing them costs more CPU than it saves.
                            compression=None)
    ctx.log.info("websocket", extra={"url": f"ws://{cfg.host}:{cfg.gateway_port}/ws",
                                     "gateway": presence.gateway_id})

    async def close_websockets() -> None:
        ws_server.close()
        await ws_server.wait_closed()

    # In order, each step on its own (one that fails does not skip the rest):
    # every session published its disconnect; then the gateway's end.
    ctx.on_stop += [close_websockets, gateway.spectators.stop, presence.stop,
                    lambda: natsconn.close(nc, cfg.drain_seconds), gateway.backends.close]
    return []


def main() -> None:
    """Run the gateway until SIGTERM."""
    run("gateway", setup)
