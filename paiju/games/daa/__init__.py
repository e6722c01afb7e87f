"""大A daa: the engine :class:`Daa` (:mod:`paiju.games.daa.game`) and its parts."""

from paiju.games.daa.game import Daa

__all__ = ["Daa"]
