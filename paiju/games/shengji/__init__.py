"""升级 shengji: the engine :class:`Shengji` (:mod:`paiju.games.shengji.game`)
and its parts."""

from paiju.games.shengji.game import Shengji

__all__ = ["Shengji"]
