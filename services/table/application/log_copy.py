"""The entries of a sitting's log that its runner knows, kept as JSON text.

A runner keeps every entry it applied and logged, oldest first, to rebuild
its sitting when an append fails or after a pause (:func:`services.table.domain.sitting.restore`).
As dicts they were most of what a busy table instance kept alive per action
(about 9 tracked containers per action), every one of them walked by each
full collection of the garbage collector for as long as its sitting runs
(docs/performance.md). As text they are not tracked
at all; they are read back only to rebuild, which is rare.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, overload

from paiju.runtime import jsontext


class Logged:
    """A list of log entries (dicts) held as their JSON text: ``append``,
    ``len``, an index or a slice (decoded copies), :meth:`all`."""

    def __init__(self, entries: Iterable[dict[str, Any]] = ()) -> None:
        self._texts = [jsontext.dumps(e) for e in entries]

    def append(self, entry: dict[str, Any]) -> None:
        """Keep ``entry`` as it is now (later changes to the dict are not seen)."""
        self._texts.append(jsontext.dumps(entry))

    def __len__(self) -> int:
        return len(self._texts)

    @overload
    def __getitem__(self, i: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, i: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, i: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(i, slice):
            return [jsontext.loads(t) for t in self._texts[i]]
        entry: dict[str, Any] = jsontext.loads(self._texts[i])
        return entry

    def all(self) -> list[dict[str, Any]]:
        """Every entry, oldest first (decoded copies)."""
        return self[:]
