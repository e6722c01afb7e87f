"""Bounded enumeration of plays: lazy multisets and a work counter.

The table asks an engine only for what a turn needs: its non-play
options, at most :data:`HINT_PLAYS` plays for the hints,
whether it may pass and the timeout's default action. Where a seat has tens of
thousands of legal plays (a void follower choosing any cards), the engines
generate plays lazily with :func:`iter_multisets` and stop after the few they
need. :data:`WORK` counts every candidate play those generators build, so tests
can assert a bound on the work of a turn (docs/performance.md, "Engines").
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from paiju.rules.cards import Card

#: Plays a hints call returns at most; every non-play option comes beside them
#: (docs/client-protocol.md).
HINT_PLAYS = 50

#: Plays a seat's decision inputs (the table's ``GetSeatView``, the gateway's
#: ``seat_view``) list at most; every non-play option comes beside them.
SEAT_VIEW_PLAYS = 500


class WorkCounter:
    """Counts candidate plays built by the lazy generators (a plain integer
    attribute ``plays``; reset it to 0 before measuring)."""

    __slots__ = ("plays",)

    def __init__(self) -> None:
        self.plays = 0


#: The process-wide counter the lazy generators add to.
WORK = WorkCounter()


def iter_multisets(items: Sequence[tuple[Card, int]], k: int) -> Iterator[tuple[Card, ...]]:
    """Every distinct sub-multiset of size ``k`` of ``items`` (``(card,
    count)`` pairs of distinct cards, lowest first), lazily.

    Each result lists its cards in the order of ``items``; results come in
    lexicographic order of their cards' positions in ``items`` (the lowest
    cards first: the first result is the ``k`` lowest cards). Each yielded
    result of ``k`` ≥ 1 cards adds 1 to :data:`WORK`. Nothing for ``k`` < 0
    or more than the items hold; one empty tuple (not counted) for ``k`` == 0."""
    if k < 0:
        return
    n = len(items)
    cap = [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        cap[i] = cap[i + 1] + items[i][1]
    if cap[0] < k:
        return
    if k == 0:  # nothing to choose: no candidate built
        yield ()
        return
    yield from _multisets_from(items, cap, [], WORK, 0, k)


def _multisets_from(items: Sequence[tuple[Card, int]], cap: list[int], cur: list[Card],
                    work: WorkCounter, i: int, left: int) -> Iterator[tuple[Card, ...]]:
    """:func:`iter_multisets`' recursion: ``cur`` plus every choice of
    ``left`` cards from ``items[i:]`` (at most ``cap[i]`` of them). A module
    function, not a closure: a nested function that calls itself is a cycle
    (its cell holds it) left to the garbage collector."""
    if left == 0:
        work.plays += 1
        yield tuple(cur)
        return
    if cap[i] < left:
        return
    c, cnt = items[i]
    for j in range(min(cnt, left), -1, -1):
        if cap[i + 1] < left - j:
            break
        cur.extend([c] * j)
        yield from _multisets_from(items, cap, cur, work, i + 1, left - j)
        if j:
            del cur[-j:]


def lowest_multiset(items: Sequence[tuple[Card, int]], k: int) -> tuple[Card, ...]:
    """The ``k`` first cards of ``items`` expanded (the lowest ``k`` when items
    are lowest first); fewer when the items hold fewer."""
    out: list[Card] = []
    for c, cnt in items:
        if len(out) >= k:
            break
        out.extend([c] * min(cnt, k - len(out)))
    return tuple(out)
