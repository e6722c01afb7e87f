"""The web client's files over real HTTP: gzip where the browser
accepts it, an ETag per file computed once at the start, ``Cache-Control``
that lets the browser keep and revalidate, ``304`` on ``If-None-Match``.

The server is the gateway's own ``process_request`` (services.gateway.entrypoints.static)
on a real websockets server on loopback (port 0: the kernel picks it)."""

from __future__ import annotations

import asyncio
import gzip
import http.client
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from websockets.asyncio.server import ServerConnection, serve

from services.gateway.entrypoints.static import STATIC, load, request_handler


async def _ws(_ws: ServerConnection) -> None:
    await _ws.close()


@pytest.fixture
async def port(tmp_path: Path) -> AsyncIterator[int]:
    server = await serve(_ws, "127.0.0.1", 0, process_request=request_handler())
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        await server.wait_closed()


def _get(port: int, path: str, headers: dict[str, str] | None = None
         ) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path, headers=headers or {})
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


async def get(port: int, path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    return await asyncio.to_thread(_get, port, path,
                                   {k.replace("_", "-"): v for k, v in headers.items()})


async def test_files_are_gzipped_and_revalidated_by_etag(port: int) -> None:
    on_disk = (STATIC / "js" / "app.js").read_bytes()
    status, h, body = await get(port, "/js/app.js", Accept_Encoding="gzip, deflate")
    assert status == 200
    assert h["content-encoding"] == "gzip" and "accept-encoding" in h["vary"].lower()
    assert gzip.decompress(body) == on_disk and len(body) < len(on_disk)
    assert h["content-type"].startswith("text/javascript") or \
        h["content-type"].startswith("application/javascript")
    # the browser may keep it and must ask again: no-cache (not no-store) with an ETag
    assert h["cache-control"] == "no-cache" and "no-store" not in h["cache-control"]
    etag = h["etag"]
    assert etag.startswith('"') and etag.endswith('"')

    status, h2, body2 = await get(port, "/js/app.js", If_None_Match=etag,
                                  Accept_Encoding="gzip")
    assert status == 304 and body2 == b"" and h2["etag"] == etag
    status, _, _ = await get(port, "/js/app.js", If_None_Match=f'"other", W/{etag}')
    assert status == 304  # a list, weak comparison (RFC 9110)
    status, _, body3 = await get(port, "/js/app.js", If_None_Match='"stale"')
    assert status == 200 and body3 == on_disk  # no Accept-Encoding: plain bytes

    status, h4, body4 = await get(port, "/", Accept_Encoding="gzip")
    assert status == 200 and b"<!doctype html>" in gzip.decompress(body4)
    _, h5, _ = await get(port, "/index.html")
    assert h4["etag"] == h5["etag"]
    status, _, _ = await get(port, "/js/app.js", Accept_Encoding="gzip;q=0")
    assert status == 200


async def test_every_client_file_has_its_own_etag_and_unknown_paths_404(port: int) -> None:
    files = load()
    paths = [p for p in files if p != "/"]
    assert {"/index.html", "/css/app.css", "/js/app.js"} <= set(paths)
    tags = {}
    for path in paths:
        status, h, _ = await get(port, path, Accept_Encoding="gzip")
        assert status == 200, path
        tags[path] = h["etag"]
    assert len(set(tags.values())) == len(tags), "distinct files, distinct ETags"
    for bad in ("/nope.js", "/../pyproject.toml", "/js/../../static.py", "/%2e%2e/main.py"):
        status, _, _ = await get(port, bad)
        assert status == 404, bad
    status, _, body = await get(port, "/healthz")
    assert status == 200 and body == b"ok\n"


def test_etags_are_computed_once_at_the_start(tmp_path: Path) -> None:
    """The table is read when the handler is made: a file changed afterwards
    is served as it was until the gateway starts again."""
    (tmp_path / "a.js").write_text("export const a = 1;\n" * 40)
    files = load(tmp_path)
    before = files["/a.js"]
    (tmp_path / "a.js").write_text("export const a = 2;\n" * 40)
    assert files["/a.js"] == before
    after = load(tmp_path)["/a.js"]
    assert after.etag != before.etag
    assert before.gzipped is not None and gzip.decompress(before.gzipped) == before.body
