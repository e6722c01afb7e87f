"""大A (daa): points at the end and on an escape (rulings.md "daa", End and
points; "Settlement"). Pure functions of the teams and who went out."""

from __future__ import annotations

from paiju.games.daa.deal import SEATS

#: Escape: the escapee pays this to each other seat (rulings.md "Settlement").
ESCAPE_POINTS = 3
#: A solo's loss per other seat: named (名双大A) 16, hidden (暗双大A) 8.
SOLO_NAMED = 16
SOLO_HIDDEN = 8


def end_points(*, solo: int | None, named: bool, master: int | None, second: int | None,
               finish_order: list[int], out: list[bool]) -> list[int]:
    """Points per seat at the end (rulings.md "daa", End and points).

    ``solo``: the seat playing alone (双大A), else ``master`` (主方) and ``second``
    (次方) are the big-A side; ``named``: the side was named (名A / 名双大A);
    ``finish_order``: the seats in the order they went out; ``out[s]``: seat
    ``s`` has no cards left.

    A solo out first: +4 × per for it, −per for each other seat (per = 16
    named, 8 hidden); a solo not out: the reverse; a solo out but not first:
    nothing. A side with both out while k opponents hold cards: 2k (主方) and
    k (次方), −k each opponent, doubled when named. Neither out: −6 / −3, +3
    each opponent; one out first of all (the other not out, 平牌): nothing;
    only 次方 out: −4 / −2, +2 each; only 主方 out: −2 / −1, +1 each.
    """
    pts = [0] * SEATS
    if solo is not None:
        per = SOLO_NAMED if named else SOLO_HIDDEN
        if finish_order and finish_order[0] == solo:
            sign = 1
        elif not out[solo]:
            sign = -1
        else:
            return pts
        for s in range(SEATS):
            pts[s] = sign * 4 * per if s == solo else -sign * per
        return pts
    assert master is not None and second is not None
    opponents = [s for s in range(SEATS) if s not in (master, second)]
    if out[master] and out[second]:
        k = sum(1 for s in opponents if not out[s])
        mult = 2 if named else 1
        pts[master], pts[second] = 2 * k * mult, k * mult
        for s in opponents:
            pts[s] = -k * mult
        return pts
    if not out[master] and not out[second]:
        m, sc, each = -6, -3, 3
    elif finish_order and finish_order[0] in (master, second):
        return pts  # 平牌: one went out first of all, the other is last
    elif not out[master]:
        m, sc, each = -4, -2, 2
    else:
        m, sc, each = -2, -1, 1
    pts[master], pts[second] = m, sc
    for s in opponents:
        pts[s] = each
    return pts


def escape_points(seat: int, solo: int | None, named: bool) -> list[int]:
    """Points when ``seat`` escapes: it pays 3 to each other seat; a solo
    escapee pays its loss (16 named / 8 hidden) to each (rulings.md
    "Settlement")."""
    per = ESCAPE_POINTS
    if solo is not None and seat == solo:
        per = SOLO_NAMED if named else SOLO_HIDDEN
    return [-(SEATS - 1) * per if s == seat else per for s in range(SEATS)]
