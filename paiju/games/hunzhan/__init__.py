"""混战 hunzhan: the engine :class:`Hunzhan` (:mod:`paiju.games.hunzhan.game`)
and its parts."""

from paiju.games.hunzhan.game import Hunzhan

__all__ = ["Hunzhan"]
