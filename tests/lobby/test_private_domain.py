"""The invite codes, the per-player try limit and the options chosen of
private rooms (好友房), services/lobby/domain/private.py, against
docs/lobby.md "Private rooms": 8 characters of
23456789ABCDEFGHJKMNPQRSTUVWXYZ, read without spaces or dashes in either
case; at most N tries in any 60 s; only 升级's decks (1 to 4, rulings.md
"shengji") may be chosen."""

from __future__ import annotations

import pytest

from services.lobby.domain.coin_servers import parse
from services.lobby.domain.errors import LobbyError
from services.lobby.domain.private import (
    Attempts,
    chosen_options,
    new_code,
    new_room_id,
    normal,
)
from tests.lobby.conftest import ROOMS_YAML


def test_codes_are_eight_unambiguous_characters() -> None:
    codes = {new_code() for _ in range(200)}
    assert len(codes) == 200
    for code in codes:
        assert len(code) == 8 and not set(code) & set("01OIL")
        assert set(code) <= set("23456789ABCDEFGHJKMNPQRSTUVWXYZ")


def test_a_code_as_typed() -> None:
    assert normal("abcd-efgh") == "ABCDEFGH"
    assert normal(" 2345 6789 ") == "23456789"
    assert normal("ABCDEFG") is None  # 7
    assert normal("ABCDEFGO") is None  # O is not in the alphabet
    assert normal("ABCDEFGHJ") is None  # 9


def test_a_private_room_id_names_its_server() -> None:
    config = parse(ROOMS_YAML)
    room = new_room_id("dz")
    assert room.startswith("dz-x") and len(room) == len("dz-x") + 12
    server = config.server_of_room(room)
    assert server is not None and server.server == "dz"
    assert config.server_of_room("nope-x0123456789ab") is None
    assert config.server_of_room("dz-x0123") is None


def test_tries_in_any_sixty_seconds() -> None:
    tries = Attempts(3)
    t0 = 1_000_000
    assert [tries.take("p", t0 + i * 1000) for i in range(4)] == [True, True, True, False]
    assert tries.take("q", t0 + 3000) is True  # another player's own
    assert tries.take("p", t0 + 59_999) is False  # the first try is 59.999 s old
    assert tries.take("p", t0 + 60_000) is True  # now it is a minute old
    assert tries.take("p", t0 + 60_500) is False


def test_only_the_games_choices_may_be_chosen() -> None:
    assert chosen_options("shengji", "") == {}
    assert chosen_options("shengji", "{}") == {}
    assert chosen_options("shengji", '{"decks": 3}') == {"decks": 3}
    for game, text in (("shengji", '{"decks": 5}'), ("shengji", '{"decks": 0}'),
                       ("shengji", '{"decks": "2"}'), ("shengji", '{"decks": true}'),
                       ("shengji", '{"decks": 3.0}'),
                       ("shengji", '{"escape_points": 1}'), ("shengji", '{"dealer": 0}'),
                       ("shengji", "[1]"), ("shengji", "{"), ("doudizhu", '{"decks": 1}'),
                       ("hunzhan", '{"card_counter": false}'), ("daa", '{"turn_seconds": 5}')):
        with pytest.raises(LobbyError) as e:
            chosen_options(game, text)
        assert e.value.code == "bad_options", (game, text)
