"""Small modules with one purpose: none over 500 lines (the developers' guide;
issue 20), the web client's JavaScript included; generated protobuf code
(``*_pb2.py``, ``*_pb2_grpc.py``, ``*.pyi``) aside."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: The most lines a module may have.
LIMIT = 500
ROOTS = ("paiju", "services", "tests", "bench", "scripts", "deploy")


def modules() -> list[Path]:
    """Every Python and JavaScript module of the project, generated code aside."""
    out = []
    for root in ROOTS:
        for pattern in ("*.py", "*.js"):
            for p in (REPO / root).rglob(pattern):
                if p.name.endswith(("_pb2.py", "_pb2_grpc.py")) or "node_modules" in p.parts:
                    continue
                out.append(p)
    return sorted(out)


def test_no_module_over_500_lines() -> None:
    """Every module has at most :data:`LIMIT` lines."""
    found = modules()
    assert any(p.suffix == ".js" for p in found) and any(p.suffix == ".py" for p in found)
    long = {str(p.relative_to(REPO)): n for p in found
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > LIMIT}
    assert not long, f"modules over {LIMIT} lines: {long}"
