"""Modules are cut where their meaning changes, not at a line count. A
module over :data:`REVIEW` lines is worth a second
look, so it says why it holds together: a ``# size:`` comment near its top
(the web client's JavaScript too: ``// size:``). Generated protobuf code
(``*_pb2.py``, ``*_pb2_grpc.py``, ``*.pyi``) aside."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: Lines above which a module must say why it is one module.
REVIEW = 800
#: How far from the top the note is looked for (lines).
NOTE_WITHIN = 40
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


def has_size_note(lines: list[str]) -> bool:
    """True if one of the first :data:`NOTE_WITHIN` lines is a size note."""
    return any(line.lstrip().startswith(("# size:", "// size:"))
               for line in lines[:NOTE_WITHIN])


def test_size_note_is_found_near_the_top_only() -> None:
    assert has_size_note(['"""Doc."""', "", "# size: one state machine, its phases"])
    assert has_size_note(["// size: the table view and its animations"])
    assert not has_size_note(["x = 1"] * NOTE_WITHIN + ["# size: too far down"])
    assert not has_size_note(["# sizes differ"])


def test_a_long_module_says_why_it_is_one() -> None:
    """Every module over :data:`REVIEW` lines carries a size note."""
    found = modules()
    assert any(p.suffix == ".js" for p in found) and any(p.suffix == ".py" for p in found)
    unexplained = {}
    for p in found:
        lines = p.read_text(encoding="utf-8").splitlines()
        if len(lines) > REVIEW and not has_size_note(lines):
            unexplained[str(p.relative_to(REPO))] = len(lines)
    assert not unexplained, f"modules over {REVIEW} lines without a '# size:' note: {unexplained}"
