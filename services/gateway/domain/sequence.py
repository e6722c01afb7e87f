"""The numbered events one client has been sent, per stream: the table's
public ``seq`` of the table it sits at or watches, and its player's own
``seq`` of its private events (docs/client-protocol.md "Events").

Pure: :class:`SeqLine` says whether the next event of a stream continues it,
repeats what the client has (to be dropped) or leaves a gap (to be repaired
with a view first). No I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

#: What to do with an event: forward it, drop it (the client has it, or a
#: view it has covers it) or repair the gap before it.
Verdict = Literal["forward", "repeat", "gap"]


def numbered(event: dict[str, Any]) -> tuple[str, int] | None:
    """The ``(game_id, seq)`` of a numbered event, or ``None`` for one that
    is not (no ``game_id`` string, or no positive integer ``seq``)."""
    game, seq = event.get("game_id"), event.get("seq")
    if not isinstance(game, str) or not game or type(seq) is not int or seq <= 0:
        return None
    return game, seq


@dataclass
class SeqLine:
    """The last ``seq`` of one stream sent to a client, and of which game."""

    game: str = ""
    last: int = 0

    def check(self, game: str, seq: int) -> Verdict:
        """The verdict on the next event ``(game, seq)``; ``forward`` also
        takes it as the last. A game's first event is taken as it comes (the
        client starts a game from ``game_started`` or from a view); after
        that ``seq`` must be ``last + 1``: at most ``last`` is a ``repeat``,
        more a ``gap`` (the line is unchanged until :meth:`level`)."""
        if game != self.game:
            self.game, self.last = game, seq
            return "forward"
        if seq <= self.last:
            return "repeat"
        if seq > self.last + 1:
            return "gap"
        self.last = seq
        return "forward"

    def behind(self, game: str, seq: int) -> bool:
        """True where ``seq`` of ``game`` is older than the last sent (a view
        at ``seq`` would take the client back)."""
        return game == self.game and seq < self.last

    def level(self, game: str, seq: int) -> None:
        """The client got a view of ``game`` at ``seq``: what is numbered up to
        it is covered (never lowered within one game)."""
        if game != self.game:
            self.game, self.last = game, seq
        else:
            self.last = max(self.last, seq)
