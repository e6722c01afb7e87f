"""A game's sequence numbers and its de-duplication of actions (events.md "Names").

Public events are numbered 1, 2, 3 … per game; each player's private events
1, 2, 3 … per player and game. An action with ``client_seq`` > 0 is answered
once: a repeat of ``(player, client_seq)`` gets the first answer again.
No I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from services.table.domain.outgoing import Answer, Outgoing


class Numbering:
    """The seq counters and remembered answers of one game of ``players``."""

    def __init__(self, players: Iterable[str]) -> None:
        self.public_seq = 0
        self.player_seq = {p: 0 for p in players}
        self._answers: dict[tuple[str, int], Answer] = {}

    def public(self, type_: str, data: dict[str, Any]) -> Outgoing:
        """A public event with the next public seq."""
        self.public_seq += 1
        return Outgoing(type_, data, self.public_seq)

    def private(self, player: str, type_: str, data: dict[str, Any]) -> Outgoing:
        """A private event to ``player`` with its next seq (``KeyError`` for a
        player not in the game)."""
        self.player_seq[player] += 1
        return Outgoing(type_, data, self.player_seq[player], player)

    def answered(self, player: str, client_seq: int) -> Answer | None:
        """The answer already given to ``(player, client_seq)``, or None (always
        None for ``client_seq`` <= 0: not de-duplicated)."""
        if client_seq <= 0:
            return None
        return self._answers.get((player, client_seq))

    def remember(self, player: str, client_seq: int, answer: Answer) -> None:
        """Keep ``answer`` for repeats of ``(player, client_seq)`` (``client_seq`` > 0)."""
        if client_seq > 0:
            self._answers[(player, client_seq)] = answer
