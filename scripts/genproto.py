#!/usr/bin/env python3
"""Generate the Python code of protos/ into the package tree (one command).

    python scripts/genproto.py            # write paiju/<pkg>/v1/*_pb2*.py(i)
    python scripts/genproto.py --out DIR  # write into DIR instead (staleness test)

Uses grpcio-tools with mypy-protobuf (typed stubs for messages and services).
The proto package ``paiju.ledger.v1`` lives in ``protos/paiju/ledger/v1/`` and
generates ``paiju/ledger/v1/ledger_pb2.py`` (import ``paiju.ledger.v1``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from grpc_tools import protoc  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parent.parent
PROTOS = ROOT / "protos"
INIT = '"""Generated from protos/ (scripts/genproto.py)."""\n'


def generate(out: Path) -> list[Path]:
    """Generate every proto under protos/ into ``out``; returns the files written."""
    files = sorted(str(p.relative_to(PROTOS)) for p in PROTOS.rglob("*.proto"))
    include = str(Path(protoc.__file__).parent / "_proto")
    bindir = Path(sys.executable).parent
    plugins = [f"--plugin=protoc-gen-{name}={bindir / f'protoc-gen-{name}'}"
               for name in ("mypy", "mypy_grpc")]
    args = ["protoc", f"-I{PROTOS}", f"-I{include}", *plugins, f"--python_out={out}",
            f"--grpc_python_out={out}", f"--mypy_out={out}", f"--mypy_grpc_out={out}", *files]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    written = []
    for f in files:
        rel = Path(f).parent  # paiju/ledger/v1
        for folder in [rel, *rel.parents]:  # every package below paiju/ gets an __init__
            if folder in (Path("."), Path("paiju")):
                continue
            init = out / folder / "__init__.py"
            if not init.exists():
                init.write_text(INIT)
        written += sorted((out / rel).glob("*_pb2*"))
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT)
    args = parser.parse_args()
    for path in generate(args.out):
        print(path.relative_to(args.out), file=sys.stderr)


if __name__ == "__main__":
    main()
