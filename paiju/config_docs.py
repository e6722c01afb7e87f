"""docs/configuration.md's tables, generated from the declarations in
:class:`paiju.config.Settings` (``python -m paiju.config_docs docs/configuration.md``
rewrites them; a test fails when they differ)."""

from __future__ import annotations

import sys
from typing import Any

from paiju.config import BEGIN, END, GROUPS, Settings, variable
from paiju.docs_markers import rewrite


def markdown() -> str:
    """The tables of every variable, one section per group (docs/configuration.md)."""
    out: list[str] = []
    for group, title in GROUPS.items():
        out += ["", f"### {title}", "", "| variable | meaning | default |", "| --- | --- | --- |"]
        for name, f in Settings.model_fields.items():
            extra = f.json_schema_extra
            assert isinstance(extra, dict)
            if extra["group"] != group:
                continue
            default = extra.get("doc_default") or _shown(f.default)
            out.append(f"| `{variable(name)}` | {f.description} | {default} |")
    return "\n".join([BEGIN, *out, "", END])


def _shown(value: Any) -> str:
    """A default as the docs show it: ``off``/``on``, ``10`` for 10.0."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"`{value}`"


if __name__ == "__main__":
    rewrite(sys.argv[1:], BEGIN, END, markdown)
