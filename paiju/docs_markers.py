"""Generated tables inside hand-written docs: the text between two marker lines."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path


def replace_between(path: Path, begin: str, end: str, generated: str) -> bool:
    """Put ``generated`` (which starts with ``begin`` and ends with ``end``) in
    place of ``path``'s text from ``begin`` to ``end``; True if the file changed.

    Raises ValueError if either marker is missing."""
    text = path.read_text(encoding="utf-8")
    start, stop = text.index(begin), text.index(end) + len(end)
    new = text[:start] + generated + text[stop:]
    path.write_text(new, encoding="utf-8")
    return new != text


def rewrite(paths: Sequence[str], begin: str, end: str, generated: Callable[[], str]) -> None:
    """Put ``generated()`` between the markers of each of ``paths`` and print
    which changed (``<path>: rewritten`` or ``<path>: up to date``)."""
    text = generated()
    for arg in paths:
        changed = replace_between(Path(arg), begin, end, text)
        print(f"{arg}: {'rewritten' if changed else 'up to date'}")
