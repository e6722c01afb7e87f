"""大A (daa): the two sides in play (seed 003 大A方 / 对方, 推风, 亮明;
rulings.md "daa").

Who is on the big-A side (:func:`team`), who knows that a seat holds a big A
(:func:`known`, for 推风: :func:`push_wind`), who may reveal itself
(:func:`can_reveal`, 亮明) and when a side is out (:func:`side_out`). The
sides are settled when the declaring window closes
(:func:`paiju.games.daa.declaring.close`); these functions read the engine's
state (:class:`Sides`) and change nothing.
"""

from __future__ import annotations

from collections import Counter
from typing import Protocol

from paiju.games.daa.deal import SEATS


class Sides(Protocol):
    """The state the sides are read from."""

    #: per seat, the face-up cards (empty: the seat is out)
    hands: list[Counter[str]]
    #: the seat playing alone (双大A), else None
    solo: int | None
    #: 主方 and 次方 (one big A each), else None
    master: int | None
    second: int | None
    #: the seat that declared (亮大A), else None
    declarer: int | None
    #: the side is named (名A / 名双大A)
    named: bool
    #: a card was played this game
    played_any: bool
    #: seats that played a big A (so everyone knows they hold one)
    big_a_shown: set[int]


def team(solo: int | None, master: int | None, second: int | None) -> list[int]:
    """The big-A side: ``[solo]``, ``[master, second]`` (主方, 次方), or [] before
    the sides are settled."""
    if solo is not None:
        return [solo]
    if master is not None and second is not None:
        return [master, second]
    return []


def next_with_cards(hands: list[Counter[str]], seat: int) -> int:
    """The first seat after ``seat`` (round the table, ``seat`` itself last)
    with cards in ``hands``; ``seat`` where none has any."""
    for i in range(1, SEATS + 1):
        s = (seat + i) % SEATS
        if hands[s]:
            return s
    return seat


def known(st: Sides, seat: int) -> bool:
    """True where everyone knows ``seat`` holds a big A: the declaring 主方, the
    named 次方, or a seat that played one."""
    if seat == st.master and st.declarer == seat:
        return True
    if seat == st.second and st.named:
        return True
    return seat in st.big_a_shown


def push_wind(st: Sides, seat: int) -> int:
    """推风: the seat that leads after ``seat`` won a trick with no cards left:
    its partner where it has cards and is :func:`known`, else the next seat
    with cards."""
    if st.solo is None and seat in (st.master, st.second):
        partner = st.second if seat == st.master else st.master
        assert partner is not None
        if st.hands[partner] and known(st, partner):
            return partner
    return next_with_cards(st.hands, seat)


def can_reveal(st: Sides, seat: int) -> bool:
    """亮明: the hidden 次方 may reveal itself; so may a solo that declared,
    before the first play. Never once the side is named."""
    if st.named:
        return False
    if st.solo is not None:
        return seat == st.solo == st.declarer and not st.played_any
    return seat == st.second


def side_out(st: Sides) -> bool:
    """True once one side has no cards left (the game ends then)."""
    hands = st.hands
    big_side = team(st.solo, st.master, st.second)
    big_out = all(not hands[s] for s in big_side)
    others_out = all(not hands[s] for s in range(SEATS) if s not in big_side)
    return big_out or others_out
