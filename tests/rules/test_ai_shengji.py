"""升级 (shengji) AI players (paiju/games/shengji/ai.py): legal, deterministic
play over whole games; plays whose rightness follows from the rules (seed
004, rulings.md "shengji", docs/rules/shengji.md); the hard level's samples
agree with what the seat saw."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from paiju.games.shengji import Shengji, ai
from paiju.games.shengji.cards import is_trump
from paiju.rules.ai import SeatView, levels, play_game, seat_view
from paiju.rules.engine import Action
from tests.rules.ai_support import trick_players as players
from tests.rules.shengji_helpers import HANDS_2, KITTY_2

#: A buried kitty for positions: no point card, no card the hands below use.
BURIED = ["4D", "4D", "7C", "7C", "8C", "8C", "9C", "9C"]


def test_levels_are_found() -> None:
    assert {"random", "normal", "hard"} <= set(levels("shengji"))


@pytest.mark.parametrize(("seed", "decks"), [(1, 2), (2, 2), (3, 1), (4, 3)])
def test_normal_plays_whole_games_legally(seed: int, decks: int) -> None:
    options = {"decks": decks}
    deal = Shengji.random_deal(options, random.Random(seed))
    game, _ = play_game("shengji", options, deal, players(ai, ["normal"] * 4, seed))
    assert isinstance(game, Shengji) and game.finished
    if not game.redeal:
        assert all(not h for h in game.hands)


def test_hard_plays_a_whole_game_legally() -> None:
    deal = Shengji.random_deal({}, random.Random(7))
    game, _ = play_game("shengji", {}, deal, players(ai, ["hard", "normal"] * 2, 7))
    assert game.finished


@pytest.mark.parametrize("kinds", [["normal"] * 4, ["hard", "normal", "normal", "normal"]])
def test_same_seed_same_game(kinds: list[str]) -> None:
    deal = Shengji.random_deal({}, random.Random(11))
    _, first = play_game("shengji", {}, deal, players(ai, kinds, 11))
    _, again = play_game("shengji", {}, deal, players(ai, kinds, 11))
    assert first == again


def position_choice(seat: int, hands: list[list[str]], trick: list[list[str]],
                    leader: int = 0) -> tuple[str, ...]:
    g = Shengji.from_position({}, hands=hands, dealer=0, trump="H", buried=BURIED,
                              leader=leader, trick=trick)
    sv = seat_view(g, "shengji", {}, seat, [])
    return ai.Normal(random.Random(0)).decide(sv).cards


def test_ten_goes_on_the_partners_sure_trick() -> None:
    # Hearts are trump. Seat 0 leads BJ, the highest card (the other BJ
    # would only tie, and ties go to the first played): seat 0's trick is
    # sure. Seat 2, its partner, has no trump and may play any card: the
    # 10 of clubs adds 10 points to its side's trick.
    hands = [["4S", "7D"], ["7S", "8D"], ["TC", "4C", "6D"], ["9S", "9D", "8S"]]
    assert position_choice(2, hands, [["BJ"], ["6S"]]) == ("TC",)


def test_no_points_to_the_opponents_trick() -> None:
    # Seat 0 leads AS, which no spade beats. Seat 1 (an opponent of seat 0)
    # holds KS TS 4S and must follow spades: the K or the 10 would give 10
    # points to seat 0's side; the 4 gives none.
    hands = [["7D", "8D"], ["KS", "TS", "4S"], ["9D", "6C", "QD"], ["JD", "6D", "7S"]]
    assert position_choice(1, hands, [["AS"]]) == ("4S",)


def test_points_won_with_the_cheapest_winner() -> None:
    # Seat 0 leads TS (10 points), seat 1 and 2 follow low; seat 3 plays last
    # with QS AS 7S: the queen and the ace both take the 10, the queen is
    # the cheaper.
    hands = [["7D", "8D"], ["9D", "JD"], ["6D", "QD"], ["QS", "AS", "7S"]]
    assert position_choice(3, hands, [["TS"], ["4S"], ["6S"]]) == ("QS",)


def declaring_view(seat: int, before: Sequence[Action] = ()) -> SeatView:
    g = Shengji({}, {"hands": [list(h) for h in HANDS_2], "bottom": list(KITTY_2)})
    for a in before:
        g.apply(a)
    return seat_view(g, "shengji", {}, seat, list(before))


def test_declares_its_long_suit_and_not_over_its_partner() -> None:
    # Seat 1 holds 3H and 3S 3S; its hearts other than 5 3 2 are 6H 6H 8H AH
    # QH QH (six), its spades 6S 7S 9S (three): it declares hearts.
    choice = ai.Normal(random.Random(0)).declare(declaring_view(1))
    assert choice is not None and choice.cards == ("3H",)
    # Seat 3, its partner, declared clubs first: seat 1 lets it stand.
    sv = declaring_view(1, [Action(3, "declare", ("3C",))])
    assert sv.legal  # it could overcall with 3S 3S
    assert ai.Normal(random.Random(0)).declare(sv) is None


def test_dealer_buries_low_plain_cards() -> None:
    deal = Shengji.random_deal({}, random.Random(3))
    g = Shengji({}, deal)
    seat = next(s for s in range(4) if g.legal_actions(s))
    g.apply(g.legal_actions(seat)[0])
    g.apply(Action(None, "end_declare"))
    assert g.phase == "burying"
    sv = seat_view(g, "shengji", {}, seat, [])
    trump = g.trump
    assert trump is not None
    plain = [c for c in sv.view["hand"]
             if not is_trump(c, trump) and c[0] not in "5TK"]
    assert len(plain) >= 8  # enough cards that are neither trumps nor points
    bury = ai.Normal(random.Random(0)).decide(sv)
    assert bury.type == "bury" and len(bury.cards) == 8
    assert not any(is_trump(c, trump) or c[0] in "5TK" for c in bury.cards)
    g.apply(bury)
    assert g.phase == "play"


def shown_out(history: Sequence[Action], trump: str) -> list[set[str]]:
    """Per seat, the suits (``T`` for trumps) it could not follow (seed 跟牌):
    read from the record trick by trick."""
    plays = [a for a in history if a.type == "play"]

    def suit(c: str) -> str:
        return "T" if is_trump(c, trump) else c[1]

    out: list[set[str]] = [set() for _ in range(4)]
    for i in range(0, len(plays), 4):
        trick = plays[i:i + 4]
        lead = trick[0].cards
        for a in trick[1:]:
            assert a.seat is not None
            if len([c for c in a.cards if suit(c) == suit(lead[0])]) < len(lead):
                out[a.seat].add(suit(lead[0]))
    return out


@pytest.mark.parametrize(("stop", "defender"), [(12, True), (40, True), (70, False)])
def test_determinize_agrees_with_the_seat_view(stop: int, defender: bool) -> None:
    deal = Shengji.random_deal({}, random.Random(5))
    _, history = play_game("shengji", {}, deal, players(ai, ["normal"] * 4, 5))
    game = Shengji({}, deal)
    for a in history[:stop]:
        game.apply(a)
    assert game.phase == "play" and game.dealer is not None and game.trump is not None
    seat = game.dealer + 1 if defender else game.dealer
    sv = seat_view(game, "shengji", {}, seat, history[:stop])
    voids = shown_out(history[:stop], game.trump)
    for k in range(5):
        d = ai.determinize(sv, random.Random(k))
        assert isinstance(d, Shengji)
        assert d.view(seat) == sv.view  # own hand, counts, kitty shown, trick, points
        assert len(d.buried) == 8
        if not defender:
            assert sorted(d.buried) == sorted(game.buried)  # the dealer knows its bury
        for s in range(4):
            assert not any(("T" if is_trump(c, d.trump or "") else c[1]) in voids[s]
                           for c in d.hands[s])


#: A buried kitty of 40 points (KD KD TC TC), for 抠底.
BURIED_40 = ["KD", "KD", "TC", "TC", "4D", "4D", "7C", "7C"]


def rollout_value(hands: list[list[str]], trick: list[list[str]], seat: int, play: list[str],
                  leader: int = 0, trick_no: int = 24, points_weight: float = 0.0) -> float:
    """The hard level's rollout of ``play`` by ``seat`` on the real game
    (dealer 0, hearts trump, the 40-point kitty, the defenders 1 and 3
    holding 30 + 20 points)."""
    g = Shengji.from_position({}, hands=hands, dealer=0, trump="H", buried=BURIED_40,
                              leader=leader, trick=trick, captured=(0, 30, 0, 20),
                              trick_no=trick_no)
    sv = seat_view(g, "shengji", {}, seat, [])
    hard = ai.Hard(random.Random(0), points_weight=points_weight)
    return hard.rollout(sv)(g, Action(seat, "play", tuple(play)))


# Trick 24 of 25: seat 0 (dealer) led 4S. Seat 1 (defender) holds AS 8S;
# seat 2 holds 6S and 7D, seat 3 9S and 8D, seat 0 QD. No card played holds
# points. AS wins trick 24 and seat 1 leads its 8S into the last trick,
# which nobody can follow or trump: the defenders win it with a single,
# 抠底 ×2: 50 + 40 × 2 = 130 points, the table's row 120-155 for two decks
# (非庄家 +2, 庄家 -2). 8S loses trick 24 to seat 3's 9S; seat 3 leads 8D into
# the last trick and seat 0's QD wins it for the dealer: no 抠底, 50 points,
# the row 40-75 (非庄家 -1, 庄家 +1).
LAST_TWO = [["QD"], ["AS", "8S"], ["6S", "7D"], ["9S", "8D"]]


@pytest.mark.parametrize(("play", "defenders_score", "points"), [("AS", 2, 130), ("8S", -1, 50)])
def test_rollout_counts_the_kitty_for_the_last_tricks_winner(
        play: str, defenders_score: int, points: int) -> None:
    assert rollout_value(LAST_TWO, [["4S"]], 1, [play]) == defenders_score
    # the points beside the table's score: 0.5 per 40 points (a row's width)
    assert rollout_value(LAST_TWO, [["4S"]], 1, [play], points_weight=0.5) == (
        defenders_score + 0.5 * points / 40)


def test_rollout_scores_the_dealers_side_and_a_pair_for_the_kitty() -> None:
    # The last trick (25): seat 1 led its pair of 8S; nobody else holds a
    # spade or a trump: the defenders win with a pair, 抠底 ×4: 50 + 40 × 4 =
    # 210 points, the row 200 and over (非庄家 +4, 庄家 -4). Seat 2, the
    # dealer's partner, follows with its two diamonds: worth -4 to its side.
    hands = [["QD", "JD"], [], ["7D", "9D"], ["6D", "9C"]]
    assert rollout_value(hands, [["8S", "8S"]], 2, ["7D", "9D"], leader=1, trick_no=25) == -4


def test_rollouts_play_as_the_normal_level() -> None:
    # The hard level's rollout policy reads the game instead of a view but
    # must choose what the normal level chooses from each seat's view.
    deal = Shengji.random_deal({}, random.Random(5))
    _, history = play_game("shengji", {}, deal, players(ai, ["normal"] * 4, 5))
    game = Shengji({}, deal)
    shown: list[set[str]] = [set() for _ in range(4)]
    plays = 0
    for i, a in enumerate(history):
        if game.phase == "play":
            assert a.seat is not None
            sv = seat_view(game, "shengji", {}, a.seat, history[:i])
            assert ai.normal_play(game, a.seat, shown) == ai.Normal(random.Random(0)).decide(sv)
            ai.play_and_track(game, a, shown)
            plays += 1
        else:
            game.apply(a)
    assert plays >= 80 and game.finished
