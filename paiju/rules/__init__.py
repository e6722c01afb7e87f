"""The rules engines' shared parts: pure Python, no I/O, deterministic. The
games themselves are packages of :mod:`paiju.games`.

``load(name)`` gives a game's engine class; :func:`new_game` makes a game
from a record's ``options`` and ``deal``. See :mod:`paiju.rules.engine` for the
interface every engine implements and :mod:`paiju.rules.registry` for how a
game registers (the ``paiju.games`` entry points, ``PAIJU_GAMES``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from paiju.rules.engine import Action, Event, Game, Result
from paiju.rules.errors import RulesError
from paiju.rules.registry import Registry

#: Game id (records.md "Games") → ``module:Class`` of its engine, as registered
#: (:mod:`paiju.rules.registry`), read on first use.
ENGINES = Registry()


def load(name: str) -> type[Game]:
    """The engine class of game ``name``; ``KeyError`` for an unknown game."""
    return ENGINES.engine(name)


def new_game(name: str, options: Mapping[str, Any], deal: Mapping[str, Any]) -> Game:
    """A new game of ``name`` from a record's ``options`` and ``deal``.

    Raises ``KeyError`` for an unknown game and ``RulesError`` (``bad_deal``,
    ``bad_options``) for a deal or options the game refuses.
    """
    engine = load(name)
    return engine(options, deal)


__all__ = ["ENGINES", "Action", "Event", "Game", "Result", "RulesError", "load", "new_game"]
