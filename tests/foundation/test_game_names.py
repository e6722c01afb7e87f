"""No game is named outside its module and its registration.

The table, the lobby, the gateway, the platform code around them and the web
client know a game only through the engine interface (paiju/rules/engine.py)
and the server's data: their *code tokens* (Python identifiers and string
literals but not docstrings or comments; JavaScript with its comments taken
out) hold no game id and no game's Chinese name. A game is named in its own
package under paiju/games/ (its ``name`` and display ``title``) and in its
registration (pyproject.toml's ``paiju.games`` entry points); docs and data
files (rooms.yaml) are not code and are not read here.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

#: The game ids (records.md "Games") and their Chinese names (seeds 000–004).
NAMES = re.compile(r"(?<![a-z])(?:doudizhu|hunzhan|daa|shengji)(?![a-z])|斗地主|混战|升级|大A|打A",
                   re.IGNORECASE)


def python_files() -> list[Path]:
    """services/ and paiju/ outside paiju/games/ and paiju/rules/ (whose error
    codes' words name a game), without generated protobuf code."""
    out = []
    for root in ("services", "paiju"):
        for p in sorted((REPO / root).rglob("*.py")):
            rel = p.relative_to(REPO).as_posix()
            if rel.startswith(("paiju/games/", "paiju/rules/")) \
                    or p.name.endswith(("_pb2.py", "_pb2_grpc.py")):
                continue
            out.append(p)
    return out


def python_tokens(source: str) -> Iterator[tuple[int, str]]:
    """``(line, token)``: every identifier and every string literal of
    ``source`` but docstrings and other statement-level strings."""
    tree = ast.parse(source)
    loose = {id(n.value) for n in ast.walk(tree)
             if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)
             and isinstance(n.value.value, str)}
    for node in ast.walk(tree):
        line = int(getattr(node, "lineno", 0))
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in loose:
                yield line, node.value
        elif isinstance(node, ast.Name):
            yield line, node.id
        elif isinstance(node, ast.Attribute):
            yield line, node.attr
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield line, node.name
        elif isinstance(node, ast.arg) or (isinstance(node, ast.keyword) and node.arg):
            yield line, node.arg or ""
        elif isinstance(node, ast.alias):
            yield line, node.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield line, node.module


def js_code(source: str) -> str:
    """``source`` with its comments blanked (strings, template literals and
    regular expression literals kept), line breaks kept."""
    out: list[str] = []
    i, n = 0, len(source)
    quote = ""
    while i < n:
        c = source[i]
        if quote:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(source[i + 1])
                i += 2
                continue
            if c == quote:
                quote = ""
            i += 1
            continue
        if c in "'\"`":
            quote = c
            out.append(c)
        elif source.startswith("//", i):
            j = source.find("\n", i)
            i = n if j < 0 else j
            continue
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * source.count("\n", i, j))
            i = j
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def js_files() -> list[Path]:
    """The web client's scripts."""
    return sorted((REPO / "services" / "gateway" / "static").rglob("*.js"))


def found() -> list[str]:
    """Every game name in the code tokens read here, as ``path:line: token``."""
    hits = []
    for p in python_files():
        rel = p.relative_to(REPO)
        for line, token in python_tokens(p.read_text(encoding="utf-8")):
            if NAMES.search(token):
                hits.append(f"{rel}:{line}: {token!r}")
    for p in js_files():
        rel = p.relative_to(REPO)
        for k, text in enumerate(js_code(p.read_text(encoding="utf-8")).splitlines(), 1):
            if NAMES.search(text):
                hits.append(f"{rel}:{k}: {text.strip()}")
    return hits


def test_no_game_name_in_platform_code() -> None:
    """services/, paiju/ (outside paiju/games/ and paiju/rules/) and the web
    client's JS name no game."""
    assert python_files() and js_files()
    hits = found()
    assert not hits, "game names outside the games' modules:\n" + "\n".join(hits)


def test_the_scan_sees_code_and_skips_comments_and_docstrings() -> None:
    """The token readers find a name in code and not in a comment or docstring."""
    py = '"""doudizhu here is a docstring."""\n# hunzhan in a comment\nx = {"shengji": 1}\n'
    assert [t for _, t in python_tokens(py) if NAMES.search(t)] == ["shengji"]
    js = '// daa\nconst a = "混战"; /* 升级 */ const u = "http://x";\n'
    assert NAMES.findall(js_code(js)) == ["混战"] and "http://x" in js_code(js)
