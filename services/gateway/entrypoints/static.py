"""Plain HTTP beside the WebSocket: the web client's files and ``/healthz``.

The client's files (``static/``, no build step) are read once when the
gateway starts (:class:`StaticFiles`): each file's bytes, its gzip form and
an ETag (a hash of the bytes). Responses carry ``Cache-Control: no-cache``
(a browser keeps the file and revalidates it before use) with the ETag, so a
revisit costs ``304 Not Modified`` per file, not the whole client again;
``Accept-Encoding: gzip`` gets the compressed bytes (``Vary:
Accept-Encoding``). Changed files are served after a restart of the gateway
(a deploy restarts it).
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

STATIC = Path(__file__).resolve().parent.parent / "static"
WS_PATH = "/ws"
#: Browsers keep the files and ask again each time (answered 304 by ETag).
CACHE_CONTROL = "no-cache"
#: Files smaller than this are not worth compressing (bytes).
GZIP_MIN_BYTES = 256


@dataclass(frozen=True, slots=True)
class StaticFile:
    """One file of ``static/``: its type, bytes, gzip bytes (or None where
    compressing does not pay) and ETag (a quoted SHA-256 prefix of ``body``)."""

    content_type: str
    body: bytes
    gzipped: bytes | None
    etag: str


def _content_type(name: str) -> str:
    kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
    if kind.startswith("text/") or kind in ("application/javascript", "image/svg+xml"):
        kind += "; charset=utf-8"
    return kind


def load(root: Path = STATIC) -> dict[str, StaticFile]:
    """Every file under ``root`` by its URL path (``/js/app.js``; ``/`` is
    ``/index.html``), with gzip and ETag computed here, once."""
    files: dict[str, StaticFile] = {}
    for path in sorted(root.rglob("*")):
        if not path.is_file():
            continue
        body = path.read_bytes()
        packed = gzip.compress(body, compresslevel=9, mtime=0)
        gz = packed if len(body) >= GZIP_MIN_BYTES and len(packed) < len(body) else None
        etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
        files["/" + path.relative_to(root).as_posix()] = StaticFile(
            _content_type(path.name), body, gz, etag)
    if "/index.html" in files:
        files["/"] = files["/index.html"]
    return files


def _response(status: HTTPStatus, body: bytes, content_type: str,
              extra: list[tuple[str, str]] | None = None) -> Response:
    headers = Headers([("Content-Type", content_type), ("Content-Length", str(len(body))),
                       ("Cache-Control", CACHE_CONTROL), ("X-Content-Type-Options", "nosniff"),
                       *(extra or [])])
    return Response(status.value, status.phrase, headers, body)


def _matches(if_none_match: str | None, etag: str) -> bool:
    """RFC 9110 If-None-Match (weak comparison): ``*`` or a list holding ``etag``."""
    if not if_none_match:
        return False
    tags = [t.strip().removeprefix("W/") for t in if_none_match.split(",")]
    return "*" in tags or etag in tags


def _accepts_gzip(accept_encoding: str | None) -> bool:
    for part in (accept_encoding or "").split(","):
        name, _, params = part.strip().partition(";")
        if name.strip().lower() in ("gzip", "*"):
            q = params.strip().removeprefix("q=")
            return not params or q not in ("0", "0.0", "0.00", "0.000")
    return False


def serve_file(files: dict[str, StaticFile], request: Request) -> Response:
    """The response to a GET of a client file: 200 (gzip where accepted),
    304 where ``If-None-Match`` holds the file's ETag, or 404."""
    path = request.path.split("?", 1)[0]
    f = files.get(path)
    if f is None:
        return _response(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain")
    tags = [("ETag", f.etag), ("Vary", "Accept-Encoding")]
    if _matches(request.headers.get("If-None-Match"), f.etag):
        headers = Headers([("ETag", f.etag), ("Cache-Control", CACHE_CONTROL),
                           ("Vary", "Accept-Encoding")])
        return Response(HTTPStatus.NOT_MODIFIED.value, HTTPStatus.NOT_MODIFIED.phrase,
                        headers, b"")
    if f.gzipped is not None and _accepts_gzip(request.headers.get("Accept-Encoding")):
        return _response(HTTPStatus.OK, f.gzipped, f.content_type,
                         [*tags, ("Content-Encoding", "gzip")])
    return _response(HTTPStatus.OK, f.body, f.content_type, tags)


def request_handler(files: dict[str, StaticFile] | None = None
                    ) -> Callable[[ServerConnection, Request], Response | None]:
    """The ``process_request`` of the gateway's server over ``files`` (by
    default :func:`load` of ``static/``, read now): ``/ws`` upgrades to a
    WebSocket; ``/healthz``; every other path a client file or 404."""
    table = load() if files is None else files

    def process_request(_conn: ServerConnection, request: Request) -> Response | None:
        path = request.path.split("?", 1)[0]
        if path == WS_PATH:
            return None
        if path == "/healthz":
            return _response(HTTPStatus.OK, b"ok\n", "text/plain")
        return serve_file(table, request)

    return process_request
