"""Which games there are: the ``paiju.games`` entry point group and the
modules ``PAIJU_GAMES`` names.

A game is one module with a :class:`~paiju.rules.engine.Game` subclass. It
registers as an entry point of the group ``paiju.games`` (``name =
"module:Class"``; the built-in four are in pyproject.toml), or, without
packaging, by naming its module in ``PAIJU_GAMES`` (comma separated; every
engine class the module defines is registered under its ``name``). Every
service process reads both the same way, so ``paiju up``'s processes know a
game its caller named. Nothing else in paiju names a game.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
from collections.abc import Iterator, Mapping
from importlib.metadata import entry_points
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paiju.rules.engine import Game

#: The entry point group games register in.
GROUP = "paiju.games"
#: A Python module name, as ``PAIJU_GAMES`` lists them.
MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


def parse_modules(value: str) -> tuple[str, ...]:
    """The module names of a ``PAIJU_GAMES`` value (comma separated, blanks
    ignored). Raises ``ValueError`` for an item that is not a module name
    (paiju/config.py declares the variable with this check)."""
    items = tuple(v.strip() for v in value.split(",") if v.strip())
    for item in items:
        if not MODULE.fullmatch(item):
            raise ValueError(f"holds {item!r}, which is not a Python module name")
    return items


def module_games(module: str) -> dict[str, str]:
    """``{name: "module:Class"}`` of every concrete engine class defined in
    ``module`` (imported). Raises ``ImportError``; ``ValueError`` where the
    module defines none."""
    from paiju.rules.engine import Game

    mod = importlib.import_module(module)
    classes = inspect.getmembers(mod, inspect.isclass)
    found = {cls.name: f"{module}:{cls.__name__}" for _, cls in classes
             if issubclass(cls, Game) and cls.__module__ == module
             and not inspect.isabstract(cls) and isinstance(getattr(cls, "name", None), str)}
    if not found:
        raise ValueError(f"PAIJU_GAMES names {module!r}, which defines no rules engine")
    return found


def extra_modules(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The modules ``PAIJU_GAMES`` names (:func:`parse_modules`; read here
    without paiju.config, whose imports would weigh on every engine's process:
    a bigger heap makes each garbage collection slower). Raises ``ValueError``
    naming the variable for a malformed value."""
    env = os.environ if environ is None else environ
    try:
        return parse_modules(env.get("PAIJU_GAMES", ""))
    except ValueError as e:
        raise ValueError(f"PAIJU_GAMES {e}") from None


def discover(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """``{game id: "module:Class"}``: the entry points of :data:`GROUP`, then
    the modules of ``PAIJU_GAMES`` (a later one of the same name wins)."""
    found = {ep.name: ep.value for ep in entry_points(group=GROUP)}
    for module in extra_modules(environ):
        found.update(module_games(module))
    return found


class Registry(Mapping[str, str]):
    """The games, read once on first use (:func:`discover`): a mapping of game
    id to ``module:Class``; :meth:`engine` gives the class."""

    def __init__(self) -> None:
        self._games: dict[str, str] | None = None
        self._classes: dict[str, type[Game]] = {}

    def _all(self) -> dict[str, str]:
        if self._games is None:
            self._games = discover()
        return self._games

    def reload(self) -> None:
        """Read the entry points and ``PAIJU_GAMES`` again (tests)."""
        self._games = None
        self._classes.clear()

    def __getitem__(self, name: str) -> str:
        return self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def engine(self, name: str) -> type[Game]:
        """The engine class of game ``name``; ``KeyError`` for an unknown game."""
        cls = self._classes.get(name)
        if cls is None:
            module, attr = self._all()[name].split(":")
            cls = getattr(importlib.import_module(module), attr)
            self._classes[name] = cls
        return cls
