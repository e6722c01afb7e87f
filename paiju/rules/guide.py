"""The rules for players (规则说明): each game package's ``rules_zh`` module
gives ``TITLE`` (str), ``SECTIONS`` (a tuple of :class:`Section`) and
``LINE_RULES`` (settlement line label -> section id, every label its
``result_lines`` produces). :func:`rules_for` reads them by game name.
Raises :class:`NoSuchGame` (code ``no_such_game``) for a game without such a module."""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from types import ModuleType
from typing import Any

_GAME_NAME = re.compile(r"^[a-z][a-z0-9_]{0,31}$")


class NoSuchGame(LookupError):
    """No game of that name has rules for players; ``code`` ``no_such_game``."""

    code = "no_such_game"


@dataclass(frozen=True)
class Section:
    """One section: a stable ``id`` (ascii), a ``title`` and a short
    ``text`` with examples, both Chinese."""

    id: str
    title: str
    text: str


def _module(game: str) -> ModuleType:
    if not _GAME_NAME.match(game):
        raise NoSuchGame(game)
    try:
        return importlib.import_module(f"paiju.games.{game}.rules_zh")
    except ModuleNotFoundError as exc:
        raise NoSuchGame(game) from exc


def rules_for(game: str) -> dict[str, Any]:
    """``{"game": str, "title": str, "sections": [{"id", "title", "text"}],
    "lines": {settlement line label: section id}}``."""
    mod = _module(game)
    sections: tuple[Section, ...] = mod.SECTIONS
    lines: dict[str, str] = mod.LINE_RULES
    return {"game": game, "title": str(mod.TITLE),
            "sections": [{"id": s.id, "title": s.title, "text": s.text} for s in sections],
            "lines": dict(lines)}


def line_rule(game: str, label: str) -> str | None:
    """The id of the section that produced a settlement line of ``label``,
    or ``None`` where the game names none."""
    rules: dict[str, str] = _module(game).LINE_RULES
    return rules.get(label)
