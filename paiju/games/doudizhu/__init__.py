"""斗地主 doudizhu: the engine :class:`Doudizhu` (:mod:`paiju.games.doudizhu.game`)
and its parts."""

from paiju.games.doudizhu.game import Doudizhu

__all__ = ["Doudizhu"]
