"""The web client's modules import only names their sources export (a
missing export stops the whole client in the browser: nothing loads)."""

from __future__ import annotations

import re
from pathlib import Path

JS = Path(__file__).resolve().parents[2] / "services" / "gateway" / "static" / "js"
NAME = r"[\w$]+"


def exports(text: str) -> set[str]:
    """The names a module exports (``export function X``, ``export {a, b as c}`` …)."""
    names = set(re.findall(rf"export (?:async )?(?:function\*?|const|let|class) ({NAME})", text))
    for group in re.findall(r"export \{([^}]*)\}", text):
        names |= {item.strip().split(" as ")[-1] for item in group.split(",") if item.strip()}
    return names


def test_every_imported_name_is_exported() -> None:
    modules = {p.name: p.read_text(encoding="utf-8") for p in JS.glob("*.js")}
    assert len(modules) > 5
    missing = []
    for name, text in modules.items():
        for group, source in re.findall(r'import \{([^}]*)\} from "\./([\w.]+)"', text):
            assert source in modules, f"{name} imports from {source}, which is not there"
            for item in filter(None, (i.strip() for i in group.split(","))):
                if item.split(" as ")[0] not in exports(modules[source]):
                    missing.append(f"{name}: {item} from {source}")
    assert missing == []
