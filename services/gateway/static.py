"""Plain HTTP beside the WebSocket: the web client's files and ``/healthz``."""

from __future__ import annotations

import mimetypes
from http import HTTPStatus
from pathlib import Path

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

STATIC = Path(__file__).resolve().parent / "static"
WS_PATH = "/ws"


def _response(status: HTTPStatus, body: bytes, content_type: str) -> Response:
    headers = Headers([("Content-Type", content_type), ("Content-Length", str(len(body))),
                       ("Cache-Control", "no-cache"), ("X-Content-Type-Options", "nosniff")])
    return Response(status.value, status.phrase, headers, body)


def process_request(_conn: ServerConnection, request: Request) -> Response | None:
    """Let ``/ws`` upgrade to a WebSocket; answer every other path with a file
    of ``static/`` (``/`` is ``index.html``), ``/healthz``, or 404."""
    path = request.path.split("?", 1)[0]
    if path == WS_PATH:
        return None
    if path == "/healthz":
        return _response(HTTPStatus.OK, b"ok\n", "text/plain")
    rel = "index.html" if path in ("", "/") else path.lstrip("/")
    target = (STATIC / rel).resolve()
    if STATIC not in target.parents or not target.is_file():
        return _response(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain")
    kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
    if kind.startswith("text/") or kind == "application/javascript":
        kind += "; charset=utf-8"
    return _response(HTTPStatus.OK, target.read_bytes(), kind)
