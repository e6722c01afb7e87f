"""大A (daa): what a client is shown, computed by the server.

:data:`PRESENTATION`: the words of the game and of its declaring phase (亮大A,
no 无主; partners); :func:`view`: what one seat may see (its own face-up hand
only); :func:`display`: the big A's suit, each seat's place out and who
revealed itself (亮明); :func:`last_trick_view`: 上一轮.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Protocol

from paiju.games.daa.combos import KIND_NAMES, Combo, sort_cards
from paiju.games.daa.deal import SEATS
from paiju.rules.cards import Card
from paiju.rules.engine import Presentation

#: The engine's :attr:`~paiju.rules.engine.Game.presentation`.
PRESENTATION = Presentation(
    title="大A", phase_labels={"declaring": "亮大A"}, declare_label="亮大A",
    no_trump_declare=False, partners=True)


class ShownState(Protocol):
    """The state the views and the display are read from (the table's public
    state and every seat's hand: :func:`view` shows a seat its own only)."""

    #: the game's name, its phase and the seats to act
    @property
    def name(self) -> str: ...
    @property
    def phase(self) -> str: ...
    def to_act(self) -> list[int]: ...

    #: the first seat dealt to; per seat, the face-up cards and the held-back
    #: card (None once given)
    first: int
    hands: list[Counter[str]]
    held: list[Card | None]
    #: 亮大A and 反大A: the seats and suits; the settled suit
    declarer: int | None
    declared_suit: str | None
    counter: int | None
    counter_suit: str | None
    big_suit: str | None
    #: the sides as far as the table knows them: the solo, 次方 and whether
    #: named (亮明); the first leader; the seats that played a big A
    solo: int | None
    second: int | None
    named: bool
    leader: int | None
    big_a_shown: set[int]
    #: the trick under way (plays and passes), the standing play (its
    #: combination, seat and cards), the last finished trick, tricks finished
    trick: list[dict[str, Any]]
    standing: Combo | None
    standing_seat: int
    standing_cards: tuple[Card, ...]
    last_trick: list[dict[str, Any]]
    trick_no: int
    #: seats in the order they went out
    finish_order: list[int]


def big_a_suit(st: ShownState) -> str | None:
    """The big A's suit as the table knows it: settled, else countered (反),
    else declared (亮), else None."""
    return st.big_suit if st.big_suit is not None else (st.counter_suit or st.declared_suit)


def display(st: ShownState) -> dict[str, Any]:
    """``badges`` per seat (its place out, 第N名; 亮明 for the revealed 次方) and,
    once a suit is known, ``trump`` (the big A)."""
    suit = big_a_suit(st)
    revealed = st.second if st.named else None
    places = {s: i + 1 for i, s in enumerate(st.finish_order)}
    badges = [[*([{"text": f"第{places[s]}名", "kind": "plain"}] if s in places else []),
               *([{"text": "亮明", "kind": "plain"}] if s == revealed else [])]
              for s in range(SEATS)]
    out: dict[str, Any] = {"badges": badges}
    if suit is not None:
        out["trump"] = {"label": "大A", "suit": suit, "rank": "A", "text": ""}
    return out


def last_trick_view(last_trick: list[dict[str, Any]]) -> dict[str, Any]:
    """上一轮: ``{"last_trick": [...]}``, copies of the last finished trick's
    plays and passes."""
    return {"last_trick": [dict(p) for p in last_trick]}


def view(st: ShownState, seat: int) -> dict[str, Any]:
    """What ``seat`` may see: its own face-up hand (the held-back card stays
    hidden until the big A is settled), counts, the trick, public roles."""
    hands, held = st.hands, st.held
    return {
        "game": st.name,
        "phase": st.phase,
        "seat": seat,
        "hand": sort_cards(hands[seat].elements()),
        "held_back": [1 if held[s] is not None else 0 for s in range(SEATS)],
        "hand_counts": [sum(hands[s].values()) + (held[s] is not None) for s in range(SEATS)],
        "to_act": st.to_act(),
        "first": st.first,
        "declarer": st.declarer,
        "declared": st.declared_suit,
        "counter_declarer": st.counter,
        "big_a": big_a_suit(st),
        "leader": st.leader,
        "named": st.named,
        "revealed": st.second if (st.named and st.second is not None) else None,
        "named_solo": st.solo if (st.named and st.solo is not None) else None,
        "big_a_played_by": sorted(st.big_a_shown),
        "trick": [dict(p) for p in st.trick],
        "standing": None if st.standing is None else {
            "seat": st.standing_seat, "cards": list(st.standing_cards),
            "combination": KIND_NAMES[st.standing[0]]},
        "last_trick": [dict(p) for p in st.last_trick],
        "trick_no": st.trick_no,
        "finish_order": list(st.finish_order),
    }
