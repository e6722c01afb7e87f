"""记牌器 (card counter) of every game: expectations counted by hand from the
decks (seed 002: one deck of 54; 混战 two decks without 3 4 6; 升级 ``decks``
decks; 大A two decks) and from what each seat has seen (docs/rules/*.md
"The card counter")."""

from __future__ import annotations

from typing import Any

from paiju.games.daa import Daa
from paiju.games.doudizhu import Doudizhu
from paiju.games.hunzhan import Hunzhan
from paiju.rules.engine import Action, Game
from tests.games.duel import Duel
from tests.rules.hunzhan_support import suited_deal
from tests.rules.shengji_helpers import act, declared_one_deck


def cs(text: str) -> tuple[str, ...]:
    return tuple(text.split())


def counts(text: str) -> list[list[Any]]:
    """``"BJ:1 SJ:0"`` → ``[["BJ", 1], ["SJ", 0]]``."""
    return [[r, int(n)] for r, n in (item.split(":") for item in text.split())]


def check(g: Game, expected: dict[int | None, str]) -> None:
    """Each seat's (``None``: a spectator's) counter is ``counts(text)``."""
    got = {seat: g.card_counter(seat) for seat in expected}
    assert got == {seat: counts(text) for seat, text in expected.items()}


# 斗地主: every card placed by hand; seat 0 calls and is the landlord.
DDZ_HANDS = [
    list(cs("3S 3H 4S 4H 5S 5H 6S 6H 7S 7H 8S 8H 9S 9H TS TH JS")),
    list(cs("3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2C JH QS QH KS")),
    list(cs("3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD 2D AS AH 2H SJ")),
]
DDZ_KITTY = list(cs("BJ 2S KH"))


def doudizhu(landlord_plays: str = "") -> Doudizhu:
    """The deal above; with ``landlord_plays``, seat 0 calls, nobody robs,
    and seat 0 (the landlord, kitty taken) leads those cards."""
    g = Doudizhu({}, {"hands": DDZ_HANDS, "bottom": DDZ_KITTY, "first": 0})
    if landlord_plays:
        for seat, bid in ((0, "call"), (1, "no_rob"), (2, "no_rob")):
            g.apply(Action(seat, bid))
        g.apply(Action(0, "play", cs(landlord_plays)))
    return g


def test_doudizhu_before_the_bid_the_kitty_is_unseen() -> None:
    g = doudizhu()
    check(g, {
        # seat 1 holds 2C, AC, KC KS, QC QS QH, JC JH, one of each of 3..T
        1: "BJ:1 SJ:1 2:3 A:3 K:2 Q:1 J:2 T:3 9:3 8:3 7:3 6:3 5:3 4:3 3:3",
        None: "BJ:1 SJ:1 2:4 A:4 K:4 Q:4 J:4 T:4 9:4 8:4 7:4 6:4 5:4 4:4 3:4"})


def test_doudizhu_kitty_shown_then_a_pair_of_threes() -> None:
    check(doudizhu("3S 3H"), {
        # farmer 1: the kitty BJ 2S KH is with the landlord; 3S 3H played; 3C its own
        1: "BJ:0 SJ:1 2:2 A:3 K:1 Q:1 J:2 T:3 9:3 8:3 7:3 6:3 5:3 4:3 3:1",
        # landlord 0: holds the kitty and 4..9 twice, TS TH, JS
        0: "BJ:0 SJ:1 2:3 A:4 K:3 Q:4 J:3 T:2 9:2 8:2 7:2 6:2 5:2 4:2 3:2",
        # a spectator: only the kitty shown and the pair played are seen
        None: "BJ:0 SJ:1 2:3 A:4 K:3 Q:4 J:4 T:4 9:4 8:4 7:4 6:4 5:4 4:4 3:2"})


def test_doudizhu_the_kitty_played_is_counted_once() -> None:
    check(doudizhu("KH"), {
        None: "BJ:0 SJ:1 2:3 A:4 K:3 Q:4 J:4 T:4 9:4 8:4 7:4 6:4 5:4 4:4 3:4"})


def test_hunzhan_deck_has_no_three_four_six_and_counts_a_play() -> None:
    g = Hunzhan({}, suited_deal())
    # seat 0: BJ BJ, TD TS, 2S and 5 7 8 9 J Q K A of spades twice
    check(g, {0: "BJ:0 SJ:2 A:6 K:6 Q:6 J:6 T:6 9:6 8:6 7:6 5:6 2:7"})
    g.apply(Action(0, "declare", cs("TS")))
    g.apply(Action(None, "end_declare"))
    g.apply(Action(0, "play", cs("5S")))
    # seat 1: 5H 5H, TH TH, 2H 2H 2S and the other hearts twice; 5S played
    check(g, {1: "BJ:2 SJ:2 A:6 K:6 Q:6 J:6 T:6 9:6 8:6 7:6 5:5 2:5",
              None: "BJ:2 SJ:2 A:8 K:8 Q:8 J:8 T:8 9:8 8:8 7:8 5:7 2:8"})


def test_shengji_buried_kitty_seen_by_the_dealer_only() -> None:
    g, _ = declared_one_deck()  # seat 1 is the dealer and has taken the kitty
    g.apply(act(1, "bury", "TH", "4H", "6H", "7H", "8H", "9H"))
    g.apply(act(1, "play", "AH"))
    check(g, {
        # seat 0 holds 3S 3H 5S AS KS QS JS TS 9S 8S 7S 6S; the shown kitty
        # (4S 4D 2S 2H 2C 2D) went to the dealer, who may have buried any of it
        0: "BJ:1 SJ:1 A:2 K:3 Q:3 J:3 T:3 9:3 8:3 7:3 6:3 5:3 4:4 3:2 2:4",
        # the dealer: 3C 5H KH QH JH 4S 4D 2S 2H 2C 2D in hand, TH 9H 8H 7H 6H 4H buried
        1: "BJ:1 SJ:1 A:3 K:3 Q:3 J:3 T:3 9:3 8:3 7:3 6:3 5:3 4:1 3:3 2:0",
        None: "BJ:1 SJ:1 A:3 K:4 Q:4 J:4 T:4 9:4 8:4 7:4 6:4 5:4 4:4 3:4 2:4"})


def test_shengji_counts_one_deck_or_two() -> None:
    g, _ = declared_one_deck()
    counter = g.card_counter(None)
    assert counter is not None and [n for _, n in counter] == [1, 1] + [4] * 13


def test_a_game_without_a_deck_has_no_counter() -> None:
    """tests/games/duel.py names no ``deck_cards``: it offers no 记牌器."""
    g = Duel({}, {"hands": [["9S", "TS", "JS", "QS", "KS", "AS"],
                            ["9H", "TH", "JH", "QH", "KH", "AH"]], "first": 0})
    assert g.card_counter(0) is None and g.card_counter(None) is None


def test_daa_held_back_card_is_unseen_by_its_own_seat() -> None:
    hand0 = "2S 2S 2H 2H 2C 2C 2D 2D 3S 3S 3H 3H 3C 3C 3D 3D 5S 5S 5H 5H 5C 7D"
    rest = sorted([*cs(" ".join(r + s for r in "23456789TJQKA" for s in "SHCD")),
                   "BJ", "SJ"] * 2)
    for c in cs(hand0):
        rest.remove(c)
    # first seat 0: seats 0, 1, 2 get 22 cards, seats 3 and 4 get 21
    hands = [list(cs(hand0)), rest[:22], rest[22:44], rest[44:65], rest[65:]]
    g = Daa({}, {"hands": hands, "bottom": [], "first": 0})
    check(g, {
        # seat 0's last card, 7D, is held back face down, hidden from seat 0 too
        0: "BJ:2 SJ:2 A:8 K:8 Q:8 J:8 T:8 9:8 8:8 7:8 6:8 5:3 4:8 3:0 2:0",
        None: "BJ:2 SJ:2 A:8 K:8 Q:8 J:8 T:8 9:8 8:8 7:8 6:8 5:8 4:8 3:8 2:8"})
