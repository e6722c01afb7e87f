"""The generated code in paiju/<pkg>/v1/ matches protos/ (scripts/genproto.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.fixtures import REPO


def test_generated_code_is_not_stale(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(REPO / "scripts" / "genproto.py"), "--out",
                    str(tmp_path)], check=True, capture_output=True)
    fresh = {p.relative_to(tmp_path): p.read_bytes() for p in tmp_path.rglob("*_pb2*")}
    protos = sorted((REPO / "protos").rglob("*.proto"))
    assert len(fresh) == 4 * len(protos) > 0  # _pb2.py, _pb2.pyi, _pb2_grpc.py, _pb2_grpc.pyi
    stale = [str(rel) for rel, text in sorted(fresh.items())
             if not (REPO / rel).exists() or (REPO / rel).read_bytes() != text]
    assert not stale, "stale generated code; run: .venv/bin/python scripts/genproto.py"
    committed = {p.relative_to(REPO) for p in (REPO / "paiju").rglob("v1/*_pb2*")}
    assert committed == set(fresh), "generated files without a .proto: delete them"
