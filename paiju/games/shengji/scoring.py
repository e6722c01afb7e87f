"""升级 (shengji) scoring: 抠底, the seed's score tables and 上台.

Source: shared/seeds/004_87bdd40096bb5c2e.txt sections 抠底 (the kitty's
points × 2 / 4 / 6 / 8), 局分计算 (一)–(四) (the tables), 上台 and 抠底 /
抢庄 (the next dealer); rulings.md "shengji" (the reading of the table's
ranges, 下家 = the next seat in playing order). Pure functions; the tricks
(:mod:`paiju.games.shengji.play`) count the points.
"""

from __future__ import annotations

from collections.abc import Sequence

from paiju.games.shengji.cards import SEATS

#: Score tables of the seed (局分计算 一 to 四): rows of
#: (lowest defender points of the row, 庄家得分, 非庄家得分, 是否换庄).
#: "0分" is the row p == 0; "5—15" is 5 <= p <= 15; ">100" is p >= 100
#: (rulings.md). A row runs up to the next row's lowest points minus 5.
SCORE_TABLES: dict[int, tuple[tuple[int, int, int, bool], ...]] = {
    1: ((0, 3, -3, False), (5, 2, -2, False), (20, 1, -1, False), (40, -1, 1, True),
        (60, -2, 2, True), (80, -3, 3, True), (100, -4, 4, True)),
    2: ((0, 3, -3, False), (5, 2, -2, False), (40, 1, -1, False), (80, -1, 1, True),
        (120, -2, 2, True), (160, -3, 3, True), (200, -4, 4, True)),
    3: ((0, 3, -3, False), (5, 2, -2, False), (60, 1, -1, False), (120, -1, 1, True),
        (180, -2, 2, True), (240, -3, 3, True), (300, -4, 4, True)),
    4: ((0, 3, -3, False), (5, 2, -2, False), (80, 1, -1, False), (160, -1, 1, True),
        (240, -2, 2, True), (320, -3, 3, True), (400, -4, 4, True)),
}


def score_row(decks: int, defender_points: int) -> tuple[int, int, bool]:
    """The seed's score-table row for ``defender_points`` (非庄家方得分).

    Returns ``(庄家得分, 非庄家得分, 是否换庄)``. Source: seed 局分计算 (一)–(四)
    with rulings.md's reading of ranges. Raises ``ValueError`` for a deck count
    outside 1..4 or negative points.
    """
    if decks not in SCORE_TABLES or defender_points < 0:
        raise ValueError(f"no score row for {decks} decks and {defender_points} points")
    row = SCORE_TABLES[decks][0]
    for r in SCORE_TABLES[decks]:
        if defender_points >= r[0]:
            row = r
    return row[1], row[2], row[3]


def kitty_multiplier(winning_size: int) -> int:
    """抠底 (seed): the buried kitty's points count × 2 / 4 / 6 / 8 for a
    single / pair / triple / quad winning the last trick for the defenders."""
    return 2 * winning_size


def defenders(dealer: int) -> tuple[int, int]:
    """The 非庄家方 seats of ``dealer`` (its two opponents; seed 非庄家方)."""
    return (dealer + 1) % SEATS, (dealer + 3) % SEATS


def defender_points(dealer: int | None, captured: Sequence[int]) -> int:
    """Points the defenders of ``dealer`` captured (``captured``: points per
    seat, 抠底 included once the last trick is won); 0 before a dealer."""
    if dealer is None:
        return 0
    a, b = defenders(dealer)
    return captured[a] + captured[b]


def table_result(decks: int, dealer: int, defender_points: int) -> tuple[list[int], int, bool]:
    """``(points per seat, next dealer, up)`` of a game played out.

    Points: the row's 庄家得分 to both dealer-side seats, 非庄家得分 to both
    defenders (rulings.md "shengji"). Next dealer (seed 抢庄 / 上台): the
    dealer's 下家 ``(dealer + 1) % 4`` when the defenders go up (``up``), else
    the dealer's partner. Raises ``ValueError`` as :func:`score_row`.
    """
    dealer_pts, defender_pts, up = score_row(decks, defender_points)
    points = [dealer_pts if (s - dealer) % 2 == 0 else defender_pts for s in range(SEATS)]
    return points, (dealer + (1 if up else 2)) % SEATS, up


def escape_points(seat: int, each: int) -> list[int]:
    """The escapee ``seat`` pays ``each`` to every other seat (rulings.md "Settlement")."""
    return [-each * (SEATS - 1) if s == seat else each for s in range(SEATS)]
