"""大A (daa): what the table shows of the sides and of the end, computed by
the server.

- :func:`public_roles`: per seat the role the whole table knows now (seed 003
  一局结束: 主方, 次方, 名双大A), never one that only its seat knows: the
  declarer (亮大A) is ``主方``; a counter-declarer (反大A) or a revealed solo
  is ``名双大A``; the other holder is ``次方`` once it revealed (亮明) or played
  a big A with a declarer at the table; a seat that played a big A whose side
  is not yet known to all is ``大A`` (it holds one).
- :func:`detail`: the result's ``detail`` (records.md, daa).
- :func:`result_lines`: the settlement lines: 大A方胜 / 对方胜 / 平牌 (or 逃跑),
  the big-A suit, the teams (主方 and 次方 with 名A / 暗大A, or the solo as
  名双大A / 暗双大A, and 对方), the finishing order (出完顺序) and who still
  held cards.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Protocol

from paiju.games.daa.deal import SEATS
from paiju.games.daa.teams import team

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "C": "♣", "D": "♦"}


class Outcome(Protocol):
    """The state the roles, the result's detail and the lines are read from."""

    #: the sides: the solo (双大A), else 主方 and 次方 (None before they are
    #: settled), and whether the side is named (名A / 名双大A)
    solo: int | None
    master: int | None
    second: int | None
    named: bool
    #: 亮大A and 反大A: the seats (None: nobody); the big A's suit once settled
    declarer: int | None
    counter: int | None
    big_suit: str | None
    #: seats that played a big A; the seats in the order they went out; per
    #: seat, the cards left; the seat that escaped, else None
    big_a_shown: set[int]
    finish_order: list[int]
    hands: list[Counter[str]]
    escaped: int | None


def public_roles(st: Outcome) -> list[str | None]:
    """Per seat: ``主方``, ``次方``, ``名双大A``, ``大A`` or ``None`` as the
    module docstring says (public knowledge only)."""
    roles: list[str | None] = [None] * SEATS
    if st.counter is not None:
        roles[st.counter] = "名双大A"
        return roles
    if st.solo is not None and st.named:
        roles[st.solo] = "名双大A"  # a declaring solo that revealed
        return roles
    for s in st.big_a_shown:
        roles[s] = "大A"
    if st.declarer is not None:
        roles[st.declarer] = "主方"
        # the declarer's is one big A: a seat that shows the other is 次方
        for s in st.big_a_shown:
            if s != st.declarer:
                roles[s] = "次方"
    if st.second is not None and st.named:
        roles[st.second] = "次方"
    if st.master is not None and st.second is not None and st.declarer is None \
            and roles[st.master] and roles[st.second]:
        # both holders known: the 主方 is the first from deal.first (rulings)
        roles[st.master], roles[st.second] = "主方", "次方"
    return roles


def detail(st: Outcome) -> dict[str, Any]:
    """The result's ``detail``: ``big_a`` (suit), ``team``, ``finish_order``,
    ``named``, ``solo`` (bool), ``declarer``, ``counter_declarer``, ``redeal``
    (always False)."""
    return {
        "big_a": st.big_suit,
        "team": team(st.solo, st.master, st.second),
        "finish_order": list(st.finish_order),
        "named": st.named,
        "solo": st.solo is not None,
        "declarer": st.declarer,
        "counter_declarer": st.counter,
        "redeal": False,
    }


def result_lines(st: Outcome, points: list[int], declaring: bool) -> list[dict[str, Any]]:
    """The settlement lines (see :meth:`paiju.rules.engine.Game.result_lines`)
    of a finished game whose ``points`` per seat are given; ``declaring``: it
    ended (by an escape) before the declaring window closed."""
    lines: list[dict[str, Any]] = []
    side = team(st.solo, st.master, st.second)
    if st.escaped is not None:
        lines.append({"label": "逃跑", "seats": [st.escaped]})
    elif side:
        mine = points[side[0]]
        lines.append({"label": "大A方胜" if mine > 0 else "对方胜" if mine < 0 else "平牌"})
    if st.big_suit is not None:
        lines.append({"label": "大A", "value": SUIT_SYMBOLS[st.big_suit] + "A"})
    lines += team_lines(st.solo, st.master, st.second, st.named)
    if st.finish_order:
        lines.append({"label": "出完顺序", "seats": list(st.finish_order)})
    left = [s for s in range(SEATS) if st.hands[s]]
    if left and not declaring:
        lines.append({"label": "未出完", "seats": left})
    return lines


def team_lines(solo: int | None, master: int | None, second: int | None,
               named: bool) -> list[dict[str, Any]]:
    """The sides' lines: the solo (名双大A / 暗双大A) or 主方 and 次方 (名A / 暗大A),
    then 对方; none before the sides are settled."""
    side = team(solo, master, second)
    if not side:
        return []
    lines: list[dict[str, Any]]
    if solo is not None:
        lines = [{"label": "名双大A" if named else "暗双大A", "seats": [solo]}]
    else:
        lines = [{"label": "主方", "seats": [master]},
                 {"label": "次方", "seats": [second], "value": "名A" if named else "暗大A"}]
    return [*lines, {"label": "对方", "seats": [s for s in range(SEATS) if s not in side]}]
