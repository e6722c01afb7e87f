"""Private rooms (好友房): invite codes, room ids, the per-player limits.

An invite code is :data:`CODE_LENGTH` characters of :data:`ALPHABET` (digits
and capitals without 0/O, 1/I/L: nothing to misread when a code is read out),
drawn with :mod:`secrets`: 31**8 ≈ 8.5 × 10**11 codes. A player may try
``attempts_per_minute`` codes a minute (default 10, 14 400 a day); with
10 000 private rooms open at once one try finds a room with probability
10 000 / 8.5 × 10**11 ≈ 1.2 × 10**-8, a whole day of tries about 1.7 × 10**-4
(docs/lobby.md "Private rooms").
"""

from __future__ import annotations

import json
import secrets
from collections import deque
from dataclasses import dataclass
from typing import Any

import grpc

from paiju.rules import load as load_engine
from services.lobby.domain import errors as E

ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 8
#: Window of the attempt limit (ms).
WINDOW_MS = 60_000


@dataclass(frozen=True)
class PrivateTerms:
    """``rooms_per_player``: private rooms a player may have open at once;
    ``attempts_per_minute``: codes a player may try (join or watch) a minute."""

    rooms_per_player: int = 1
    attempts_per_minute: int = 10


#: The default terms.
DEFAULT_TERMS = PrivateTerms()


def new_code() -> str:
    """A fresh random invite code."""
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def new_room_id(server: str) -> str:
    """A fresh private room id ``<server>-x<12 hex>`` (reveals nothing of the code)."""
    return f"{server}-x{secrets.token_hex(6)}"


def chosen_options(game: str, options_json: str) -> dict[str, Any]:
    """The rule options an opener chose for a private room of ``game``, from
    a JSON object (``""``: none): each key one of the game's player choices
    (:attr:`paiju.rules.engine.Game.choices`, e.g. 升级's ``decks``) with one
    of its allowed values. Raises ``bad_options`` (INVALID_ARGUMENT) for
    anything else."""
    if not options_json:
        return {}
    try:
        options = json.loads(options_json)
    except ValueError:
        options = None
    if not isinstance(options, dict):
        raise E.LobbyError(E.BAD_OPTIONS, "options must be a JSON object",
                           grpc.StatusCode.INVALID_ARGUMENT)
    choices = load_engine(game).choices
    for key, value in options.items():
        allowed = choices.get(key, ())
        if not any(type(value) is type(a) and value == a for a in allowed):
            offered = ", ".join(f"{k} {list(v)}" for k, v in choices.items()) or "none"
            raise E.LobbyError(E.BAD_OPTIONS, f"{game} rooms choose only: {offered}",
                               grpc.StatusCode.INVALID_ARGUMENT)
    return dict(options)


def normal(code: str) -> str | None:
    """``code`` as stored (upper case, spaces and dashes dropped), or None where
    it cannot be a code (a try all the same)."""
    cleaned = code.replace(" ", "").replace("-", "").upper()
    if len(cleaned) != CODE_LENGTH or any(c not in ALPHABET for c in cleaned):
        return None
    return cleaned


class Attempts:
    """Each player's code tries in the last minute (this lobby process)."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._tries: dict[str, deque[int]] = {}

    def take(self, player: str, now_ms: int) -> bool:
        """Count one try of ``player`` at ``now_ms``; False (not counted) when
        its tries of the last minute are used."""
        tries = self._tries.setdefault(player, deque())
        while tries and tries[0] <= now_ms - WINDOW_MS:
            tries.popleft()
        if len(tries) >= self.per_minute:
            return False
        tries.append(now_ms)
        if len(self._tries) > 100_000:
            self._forget(now_ms)
        return True

    def _forget(self, now_ms: int) -> None:
        """Drop players with no try in the window (bounds the memory)."""
        for player in [p for p, t in self._tries.items()
                       if not t or t[-1] <= now_ms - WINDOW_MS]:
            del self._tries[player]
