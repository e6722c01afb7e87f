"""The 记牌器 at the table (pure, no I/O): each seat's numbers in its view and
in private ``counter`` events, a spectator's from public information only,
and none at all where the room's ``card_counter`` option is off. The numbers
are counted by hand from the deal below (seed 002: one deck of 54)."""

from __future__ import annotations

from typing import Any

from services.table.domain.entries import Act, Created
from services.table.domain.options import TableOptions, split
from services.table.domain.outgoing import Seat, ms
from services.table.domain.public_view import public_view
from services.table.domain.sitting import Sitting, spec_json
from services.table.domain.spec import GameSpec, Terms
from tests.rules.test_card_counter import DDZ_HANDS, DDZ_KITTY, counts

T0 = 1_700_000_000.0
#: The hand-written deal of tests/rules/test_card_counter.py: seat 0 calls.
DEAL = {"hands": DDZ_HANDS, "bottom": DDZ_KITTY, "first": 0}


def sitting(options: dict[str, Any]) -> tuple[Sitting, list[Any]]:
    _, topts = split({"turn_seconds": 20, "deal_interval_ms": 0, **options}, 3)
    spec = GameSpec("g1", "r1", "s1", "doudizhu", {}, topts,
                    tuple(Seat(i, f"p{i}", f"p{i}") for i in range(3)), Terms())
    g = Sitting(Created(ms(T0), spec_json(spec), DEAL, []))
    out = list(g.first().events)
    for seq, (player, action, cards) in enumerate(
            [("p0", "call", ()), ("p1", "no_rob", ()), ("p2", "no_rob", ()),
             ("p0", "play", ("3S", "3H"))], start=1):
        applied = g.apply(Act(ms(T0 + seq), player, action, cards, seq))
        assert applied.answer.ok
        out += applied.events
    return g, out


FARMER = counts("BJ:0 SJ:1 2:2 A:3 K:1 Q:1 J:2 T:3 9:3 8:3 7:3 6:3 5:3 4:3 3:1")
PUBLIC = counts("BJ:0 SJ:1 2:3 A:4 K:3 Q:4 J:4 T:4 9:4 8:4 7:4 6:4 5:4 4:4 3:2")


def test_a_farmer_sees_the_kitty_and_the_pair_counted() -> None:
    g, out = sitting({})
    assert g.view("p1", T0 + 5)["counter"] == FARMER
    mine = [o.data["counter"] for o in out if o.player == "p1" and o.type == "counter"]
    # at the deal: 2C AC KC KS QC QS QH JC JH and 3..T one each in hand
    assert mine[0] == counts("BJ:1 SJ:1 2:3 A:3 K:2 Q:1 J:2 T:3 9:3 8:3 7:3 6:3 5:3 4:3 3:3")
    assert mine[-1] == FARMER


def test_a_spectator_counts_public_cards_only() -> None:
    g, out = sitting({})
    assert public_view(g, T0 + 5)["counter"] == PUBLIC
    public = [o.data["counter"] for o in out if o.player is None and "counter" in o.data]
    # the kitty shown (BJ 2S KH), then the pair of 3s
    assert public == [
        counts("BJ:0 SJ:1 2:3 A:4 K:3 Q:4 J:4 T:4 9:4 8:4 7:4 6:4 5:4 4:4 3:4"), PUBLIC]


def test_the_option_off_sends_no_counter() -> None:
    g, out = sitting({"card_counter": False})
    assert g.topts == TableOptions(turn_seconds=20.0, deal_interval_ms=0.0,
                                   deal_by_rounds=True, card_counter=False)
    assert "counter" not in g.view("p1", T0 + 5)
    assert "counter" not in public_view(g, T0 + 5)
    assert not [o for o in out if o.type == "counter" or "counter" in o.data]
