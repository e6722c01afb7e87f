"""Relief coins (救济金) as the lobby offers them: the terms from the
configuration and who may claim (no I/O; the ledger checks the balance and
the day's cap when it grants: services/ledger/application/relief.py)."""

from __future__ import annotations

from dataclasses import dataclass

from services.lobby.domain.coin_servers import RoomsConfig


@dataclass(frozen=True)
class ReliefTerms:
    """``coins`` per claim (0: no relief offered), ``per_day`` claims per
    relief day, which starts at UTC hour ``day_starts_utc_hour`` (0-23)."""

    coins: int = 0
    per_day: int = 3
    day_starts_utc_hour: int = 16

    @property
    def offered(self) -> bool:
        """Whether relief is offered at all."""
        return self.coins > 0


#: No relief offered.
NO_RELIEF = ReliefTerms()


def threshold(config: RoomsConfig, game: str) -> int | None:
    """The coins below which a player cannot sit at any server of ``game``:
    the lowest ``min_coins`` of its servers (practice servers, which need
    none, aside); None when no coin server plays it."""
    minimums = [s.min_coins for s in config.servers if s.game == game and not s.practice]
    return min(minimums) if minimums else None
