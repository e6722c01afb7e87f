"""混战 hunzhan AI players (paiju/games/hunzhan/ai.py): legal, deterministic
play over whole games; plays whose rightness follows from the rules (seed
000, rulings.md "hunzhan", docs/rules/hunzhan.md); the hard level's samples
agree with what the seat saw."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from paiju.games.hunzhan import Hunzhan, ai
from paiju.games.hunzhan.cards import ORDERS
from paiju.rules.ai import levels, play_game, seat_view
from paiju.rules.engine import Action
from tests.rules.ai_support import trick_players as players
from tests.rules.hunzhan_support import make_deal, start

PLAIN = "5789JQKA"


def suit(s: str) -> str:
    """The 16 plain cards of suit ``s`` (5 7 8 9 J Q K A, twice), spaced."""
    return " ".join(r + s for r in PLAIN for _ in (0, 1))


def test_levels_are_found() -> None:
    assert {"random", "normal", "hard"} <= set(levels("hunzhan"))


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_normal_plays_whole_games_legally(seed: int) -> None:
    deal = Hunzhan.random_deal({}, random.Random(seed))
    game, history = play_game("hunzhan", {}, deal, players(ai, ["normal"] * 4, seed))
    assert isinstance(game, Hunzhan) and game.finished
    if game.result().kind != "redeal":
        assert sum(1 for a in history if a.type == "play") >= 21  # every card played
        assert all(not h for h in game.hands)


def test_hard_plays_a_whole_game_legally() -> None:
    deal = Hunzhan.random_deal({}, random.Random(7))
    game, _ = play_game("hunzhan", {}, deal, players(ai, ["hard", "normal"] * 2, 7))
    assert game.finished


@pytest.mark.parametrize("kinds", [["normal"] * 4, ["hard", "normal", "normal", "normal"]])
def test_same_seed_same_game(kinds: list[str]) -> None:
    deal = Hunzhan.random_deal({}, random.Random(11))
    _, first = play_game("hunzhan", {}, deal, players(ai, kinds, 11))
    _, again = play_game("hunzhan", {}, deal, players(ai, kinds, 11))
    assert first == again


def decide(game: Hunzhan, seat: int, history: Sequence[Action] = ()) -> tuple[str, ...]:
    sv = seat_view(game, "hunzhan", {}, seat, list(history))
    return ai.Normal(random.Random(0)).decide(sv).cards


def test_lost_trick_is_followed_with_the_lowest_card() -> None:
    # Seat 0 leads AH, which no heart beats (an equal AH would not). Seat 1
    # holds 7H 9H QH: it loses the trick whatever it plays, so its 7H.
    g = start({0: "TS AH", 1: f"7H 9H QH {suit('C')} 7D 8D"})
    g.apply(Action(0, "play", ("AH",)))
    assert decide(g, 1) == ("7H",)


def test_points_in_the_trick_are_won_with_the_cheapest_winner() -> None:
    # 5H led (5 points), 9H and JH follow; seat 3 plays last with QH AH 7H:
    # QH and AH both take the trick (and must: point rule 2), QH is cheaper.
    g = start({0: "TS 5H", 1: "9H", 2: "JH", 3: f"QH AH 7H {suit('D')} 7C 8C"})
    for seat, card in ((0, "5H"), (1, "9H"), (2, "JH")):
        g.apply(Action(seat, "play", (card,)))
    assert decide(g, 3) == ("QH",)


def test_last_seat_takes_a_pointless_trick_with_its_own_point_card() -> None:
    # 9H led, 7H 8H follow, no points yet; seat 3 plays last with KH and 7H.
    # KH beats every card so far, so it is legal (rulings.md: a point card
    # that beats is a play "without such a card"), and as the last play it
    # surely takes the trick and its own 10 points; 7H takes nothing.
    g = start({0: "TS 9H", 1: "7H", 2: "8H", 3: f"KH 7H {suit('C')} 7D 8D 9D"})
    for seat, card in ((0, "9H"), (1, "7H"), (2, "8H")):
        g.apply(Action(seat, "play", (card,)))
    assert decide(g, 3) == ("KH",)


def test_declares_its_strongest_trump_and_overcalls_only_to_gain() -> None:
    # Seat 0 holds TS, TH, BJ, two 2S and sixteen plain spades: with spades
    # trump it holds 20 trumps, with hearts 5. Nobody has declared: TS.
    g = Hunzhan({}, make_deal({0: f"TS {suit('S')} BJ 2S 2S TH", 1: "TD"}))
    choice = ai.Normal(random.Random(0)).declare(seat_view(g, "hunzhan", {}, 0, []))
    assert choice is not None and choice.cards == ("TS",)
    # Seat 1 declares TD; seat 0 overcalls with TS (diamonds would leave it
    # 5 trumps, spades 20).
    g.apply(Action(1, "declare", ("TD",)))
    choice = ai.Normal(random.Random(0)).declare(seat_view(g, "hunzhan", {}, 0, []))
    assert choice is not None and choice.cards == ("TS",)


def test_no_overcall_that_weakens_the_hand() -> None:
    # Seat 0 declares TD. Seat 1 holds TS and sixteen plain diamonds: with
    # diamonds trump it holds 17 trumps (the 10s are trumps in every suit),
    # with spades 1. Its one legal overcall, TS, would weaken it: it waits.
    g = Hunzhan({}, make_deal({0: "TD", 1: f"TS {suit('D')} 7C 8C 9C JC"}))
    g.apply(Action(0, "declare", ("TD",)))
    sv = seat_view(g, "hunzhan", {}, 1, [Action(0, "declare", ("TD",))])
    assert [a.cards for a in sv.legal] == [("TS",)]
    assert ai.Normal(random.Random(0)).declare(sv) is None


def shown_out(history: Sequence[Action], group: dict[str, str]) -> list[set[str]]:
    """Per seat, the groups it could not follow (rulings.md "Following"):
    read from the record by hand, trick by trick."""
    plays = [a for a in history if a.type == "play"]
    out: list[set[str]] = [set() for _ in range(4)]
    for i in range(0, len(plays), 4):
        trick = plays[i:i + 4]
        lead = trick[0].cards
        g = group[lead[0]]
        for a in trick[1:]:
            assert a.seat is not None
            if len([c for c in a.cards if group[c] == g]) < len(lead):
                out[a.seat].add(g)
    return out


@pytest.mark.parametrize("stop", [9, 30, 55])
def test_determinize_agrees_with_the_seat_view(stop: int) -> None:
    deal = Hunzhan.random_deal({}, random.Random(5))
    _, history = play_game("hunzhan", {}, deal, players(ai, ["normal"] * 4, 5))
    game = Hunzhan({}, deal)
    for a in history[:stop]:
        game.apply(a)
    assert game.phase == "play"
    seat = game.to_act()[0]
    sv = seat_view(game, "hunzhan", {}, seat, history[:stop])
    group = ORDERS[game.trump].group
    voids = shown_out(history[:stop], group)
    for k in range(5):
        d = ai.determinize(sv, random.Random(k))
        assert isinstance(d, Hunzhan)
        assert d.view(seat) == sv.view  # own hand, counts, trick, points: replayed
        for s in range(4):
            assert not any(group[c] in voids[s] for c in d.hands[s])
        assert d.legal_actions(seat) == list(sv.legal)
