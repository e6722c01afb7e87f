"""Property tests of shengji over random deals and random legal play, for
each deck count (seed 004; rulings.md "shengji").

For every game: it ends; cards are conserved (played + buried kitty = the
decks); trick points plus the buried kitty's points are 100 per deck; the
result's points sum to zero and follow the dealer/defender split;
``legal_actions`` is exactly what ``apply`` accepts (every listed action
applies on a copy, sampled unlisted card sets are refused); views and events
never carry another seat's hand or the buried kitty; replaying the record gives
the same result; a game rebuilt by ``Shengji.from_position`` at a moment of
play goes on as the game.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paiju.games.shengji.game import Shengji, card_points
from paiju.rules.cards import SUITS, deck
from paiju.rules.engine import Action, Event
from paiju.rules.errors import RulesError
from paiju.tools.replay import replay

#: How many listed actions are applied on copies at one step (big follow sets
#: with four decks are sampled).
CHECK_LISTED = 25
#: How many random unlisted card sets are tried at one step.
CHECK_UNLISTED = 25


def _accepts(game: Shengji, action: Action) -> bool:
    g = copy.deepcopy(game)
    try:
        g.apply(action)
    except RulesError:
        return False
    return True


def _check_legal(game: Shengji, rng: random.Random) -> None:
    """legal_actions vs apply for the seat to act (or every seat while declaring)."""
    seats = game.to_act() or list(range(4))
    for seat in seats:
        listed = game.legal_actions(seat)
        keys = [(a.type, a.cards) for a in listed]
        assert len(keys) == len(set(keys)), "duplicates in legal_actions"
        for a in listed:
            assert a.cards == tuple(sorted(a.cards)) or a.type == "declare"
        for a in rng.sample(listed, min(CHECK_LISTED, len(listed))):
            assert _accepts(game, a), a
        hand = list(game.hands[seat].elements())
        listed_set = {a.cards for a in listed}
        if game.phase == "declaring":
            for s in SUITS:
                for n in range(1, 6):
                    a = Action(seat, "declare", ("3" + s,) * n)
                    assert _accepts(game, a) == (a.cards in listed_set), a
        elif game.phase == "burying":
            # listed buries are a bounded family; every kitty-size set is legal
            for _ in range(5):
                cards = tuple(rng.sample(hand, game.kitty_size))
                assert _accepts(game, Action(seat, "bury", cards))
            assert not _accepts(game, Action(seat, "bury", tuple(hand[: game.kitty_size - 1])))
            assert not _accepts(game, Action(seat, "bury", tuple(hand[: game.kitty_size + 1])))
        else:
            sizes = [len(game.trick[0][1])] if game.trick else [1, 2, 3, 4]
            for _ in range(CHECK_UNLISTED):
                n = rng.choice([*sizes, 1, 2, 3, 4])
                if n > len(hand):
                    continue
                cards = tuple(sorted(rng.sample(hand, n)))
                if cards not in listed_set:
                    assert not _accepts(game, Action(seat, "play", cards)), cards


def _check_views(game: Shengji) -> None:
    for seat in range(4):
        v = game.view(seat)
        assert Counter(v["hand"]) == game.hands[seat]
        assert v["hand_counts"] == [sum(h.values()) for h in game.hands]
        assert ("buried" in v) == (seat == game.dealer and bool(game.buried))
        allowed = {"hand", "kitty_shown", "trick", "last_trick", "declared", "buried", "result"}
        for key, value in v.items():
            if key not in allowed:
                assert not (isinstance(value, list) and value and isinstance(value[0], str)
                            and len(value[0]) == 2 and value[0][0] in "23456789TJQKAS"), key
        if v["kitty_shown"] is not None:
            assert v["kitty_shown"] == game.kitty


def _check_events(game: Shengji, events: list[Event], hands_before: list[Counter[str]]) -> None:
    for e in events:
        if e.to is None:
            assert e.type in {"declared", "declaring_closed", "kitty_shown", "played",
                              "trick_won", "scores", "timed_out", "escaped", "buried"}, e.type
            if e.type == "buried":  # who buried and the counts, never the cards
                assert set(e.data) == {"seat", "count", "hand_counts"}
                assert e.data["hand_counts"] == [sum(h.values()) for h in game.hands]
            if e.type == "kitty_shown":
                assert e.data["cards"] == game.kitty
            if e.type == "played":
                assert Counter(e.data["cards"]) <= hands_before[e.data["seat"]]
            if e.type == "declared":
                assert Counter(e.data["cards"]) <= hands_before[e.data["seat"]]
            assert set(e.data) & {"hand", "buried"} == set()
        else:
            assert e.type in {"hand", "kitty"}
            if e.type == "hand":
                assert Counter(e.data["cards"]) == game.hands[e.to]
            if e.type == "kitty":
                assert e.to == game.dealer and e.data["cards"] == game.kitty


def _play_one(decks: int, seed: int, check_every: int) -> None:
    rng = random.Random(seed)
    options: dict[str, Any] = {"decks": decks}
    if rng.random() < 0.3:
        options["dealer"] = rng.randrange(4)
    deal = Shengji.random_deal(options, rng)
    game = Shengji(options, deal)
    actions: list[dict[str, Any]] = []
    played: Counter[str] = Counter()
    trick_points = 0
    step = 0
    while not game.finished:
        assert len(actions) < 3000
        if step % check_every == 0:
            _check_legal(game, rng)
            _check_views(game)
        step += 1
        seats = game.to_act()
        if seats:
            action = rng.choice(game.legal_actions(seats[0]))
        else:
            choices = [a for s in range(4) for a in game.legal_actions(s)]
            action = (rng.choice(choices) if choices and rng.random() < 0.6
                      else Action(None, "end_declare"))
        before = [Counter(h) for h in game.hands]
        events = game.apply(action)
        _check_events(game, events, before)
        actions.append(action.to_json())
        for e in events:
            if e.type == "played":
                played.update(e.data["cards"])
            if e.type == "trick_won":
                trick_points += e.data["points"]
    _check_views(game)
    result = game.result()
    assert sum(result.points) == 0
    if game.redeal:
        assert result.points == [0, 0, 0, 0] and result.detail["redeal"] is True
    else:
        assert not any(game.hands)
        assert played + Counter(game.buried) == Counter(deck(decks))
        assert trick_points + card_points(game.buried) == 100 * decks
        d = result.detail
        dealer = d["dealer"]
        assert result.points[dealer] == result.points[(dealer + 2) % 4]
        assert result.points[(dealer + 1) % 4] == result.points[(dealer + 3) % 4]
        assert result.points[dealer] == -result.points[(dealer + 1) % 4]
        if options.get("dealer") is not None:
            assert dealer == options["dealer"]
        assert d["next_dealer"] in ((dealer + 1) % 4, (dealer + 2) % 4)
        assert d["kitty_multiplier"] in (0, 2, 4, 6, 8)
    record = {"game": "shengji", "options": options, "deal": deal, "actions": actions}
    out = replay(record)
    assert all(a["ok"] for a in out["actions"])
    assert out["result"] == result.to_json()


@pytest.mark.slow  # 40 whole games: about 15 to 30 s
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32))
def test_random_games_one_deck(seed: int) -> None:
    _play_one(1, seed, 1)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32))
def test_random_games_two_decks(seed: int) -> None:
    _play_one(2, seed, 3)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32))
def test_random_games_three_decks(seed: int) -> None:
    _play_one(3, seed, 9)


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 2**32))
def test_random_games_four_decks(seed: int) -> None:
    _play_one(4, seed, 15)


def _position_of(game: Shengji) -> Shengji:
    """``Shengji.from_position`` of ``game``'s public state (in play)."""
    assert game.trump is not None and game.dealer is not None
    return Shengji.from_position(
        {"decks": game.decks}, hands=[list(h.elements()) for h in game.hands],
        dealer=game.dealer, trump=game.trump, buried=game.buried, leader=game.leader,
        trick=[list(cards) for _, cards in game.trick], captured=game.captured,
        trick_no=game.trick_no, declarer=game.declarer, declared=game.declared,
        captured_cards=game.captured_cards)


def _same_game(a: Shengji, b: Shengji) -> None:
    for seat in range(4):
        va, vb = a.view(seat), b.view(seat)
        for key in ("kitty_shown", "last_trick"):  # not part of a position
            del va[key], vb[key]
        assert va == vb
        assert a.legal_actions(seat) == b.legal_actions(seat)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.integers(0, 2**32))
def test_position_of_a_game_plays_as_the_game(decks: int, seed: int) -> None:
    """A game rebuilt by ``from_position`` at a random moment of play shows
    the same views and legal actions, and the same actions end it with the
    same result."""
    rng = random.Random(seed)
    game = Shengji({"decks": decks}, Shengji.random_deal({"decks": decks}, rng))
    while game.phase != "play":
        if game.finished:
            return  # a redeal: no play
        seats = game.to_act()
        if seats:
            game.apply(rng.choice(game.legal_actions(seats[0])))
        else:
            choices = [a for s in range(4) for a in game.legal_actions(s)]
            game.apply(rng.choice(choices) if choices and rng.random() < 0.5
                       else Action(None, "end_declare"))
    for _ in range(rng.randrange(20 * decks)):
        game.apply(rng.choice(game.legal_actions(game.to_act()[0])))
        if game.finished:
            return
    copy_ = _position_of(game)
    _same_game(game, copy_)
    while not game.finished:
        action = rng.choice(game.legal_actions(game.to_act()[0]))
        assert game.apply(action) == copy_.apply(action)
        _same_game(game, copy_)
    assert copy_.finished and game.result() == copy_.result()
