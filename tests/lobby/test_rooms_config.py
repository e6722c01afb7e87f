"""The rooms file: the built-in default offers every game, bad files are refused."""

from __future__ import annotations

import pytest

from services.lobby.domain.coin_servers import RoomsConfigError, load, parse


def test_default_file_offers_every_game_at_several_levels() -> None:
    config = load()
    games = {s.game for s in config.servers}
    assert games == {"doudizhu", "hunzhan", "daa", "shengji"}
    decks = {s.options.get("decks") for s in config.servers if s.game == "shengji"}
    assert decks == {1, 2, 3, 4}
    for game in ("doudizhu", "hunzhan", "daa", "shengji"):
        assert len({s.base for s in config.servers if s.game == game}) >= 2, game
    for s in config.servers:
        # Seats per game (records.md "Games"); unit 5 in hunzhan, else 1 (rulings.md).
        assert s.seats == {"doudizhu": 3, "hunzhan": 4, "daa": 5, "shengji": 4}[s.game]
        assert s.unit == (5 if s.game == "hunzhan" else 1)
        assert s.fee_rate == 0.02 and s.ready_seconds == 20
        assert s.idle_disconnect_seconds == 30  # rulings.md "Shared by all games"
        assert s.rooms >= 1
        assert s.min_coins == 0 if s.practice else s.min_coins > 0
    # One practice server (练习场) per game.
    assert sorted(s.game for s in config.servers if s.practice) == sorted(games)
    first = config.servers[0]
    assert first.room_ids()[:2] == [f"{first.server}-01", f"{first.server}-02"]
    assert config.server_of_room(f"{first.server}-01") == first
    assert config.server_of_room("nowhere-01") is None


def test_defaults_and_explicit_values() -> None:
    config = parse("""
defaults: {rooms: 2, fee_rate: 0.05}
servers:
  - {server: a, game: hunzhan, base: 100, min_coins: 0}
  - {server: b, game: daa, base: 5, min_coins: 50, unit: 2, rooms: 1, ready_seconds: 30,
     fee_rate: 0, idle_disconnect_seconds: 2, spectators: false}
""")
    a, b = config.servers
    assert (a.unit, a.rooms, a.fee_rate, a.ready_seconds, a.name) == (5, 2, 0.05, 20, "a")
    assert (b.unit, b.rooms, b.fee_rate, b.ready_seconds, b.seats) == (2, 1, 0.0, 30, 5)
    assert (a.idle_disconnect_seconds, b.idle_disconnect_seconds) == (30, 2)
    # The room-wide option: watching is allowed unless it says no.
    assert (a.spectators, b.spectators) == (True, False)


def test_practice_servers_need_no_coins() -> None:
    """A practice server (练习场) has min_coins 0 and base 1 unless set; a
    default ``min_coins`` does not apply to it; other servers are not practice."""
    config = parse("""
defaults: {min_coins: 100}
servers:
  - {server: p, game: doudizhu, practice: true}
  - {server: q, game: daa, practice: true, base: 5, min_coins: 0}
  - {server: c, game: daa, base: 5}
""")
    p, q, c = config.servers
    assert (p.practice, p.min_coins, p.base) == (True, 0, 1)
    assert (q.practice, q.min_coins, q.base) == (True, 0, 5)
    assert (c.practice, c.min_coins) == (False, 100)
    # Filling waiting rooms with AI players is off unless a coin server says so.
    assert (p.ai_fill_after_s, c.ai_fill_after_s) == (0, 0)
    filled = parse("servers:\n  - {server: f, game: daa, base: 5, min_coins: 0, "
                   "ai_fill_after_s: 30}")
    assert filled.servers[0].ai_fill_after_s == 30


@pytest.mark.parametrize("game", ["doudizhu", "hunzhan", "daa", "shengji"])
def test_room_wide_options_accepted_for_every_game(game: str) -> None:
    """The room-wide options (rulings.md "Shared by all games", "Settlement")
    are accepted in any game's options, doudizhu's too."""
    config = parse(f"servers:\n  - {{server: a, game: {game}, base: 1, min_coins: 0, "
                   "options: {unit: 5, fee_rate: 0.02, turn_seconds: 30}}")
    assert config.servers[0].options == {"unit": 5, "fee_rate": 0.02, "turn_seconds": 30}


@pytest.mark.parametrize(("text", "names"), [
    ("servers: []", "no servers"),
    ("just text", "mapping"),
    ("servers:\n  - {server: A!, game: daa, base: 1, min_coins: 0}", "server must match"),
    ("servers:\n  - {server: a, game: poker, base: 1, min_coins: 0}", "game must be"),
    ("servers:\n  - {server: a, game: daa, base: 0, min_coins: 0}", "base must be"),
    ("servers:\n  - {server: a, game: daa, base: 1}", "min_coins must be"),
    ("servers:\n  - {server: a, game: daa, base: 1, min_coins: 0, fee_rate: 1.5}",
     "fee_rate"),
    ("servers:\n  - {server: a, game: daa, base: 1, min_coins: 0, "
     "idle_disconnect_seconds: 0}", "idle_disconnect_seconds must be"),
    ("servers:\n  - {server: a, game: shengji, base: 1, min_coins: 0, options: {decks: 5}}",
     "decks"),
    ("servers:\n  - {server: a, game: daa, base: 1, min_coins: 0, spectators: yes please}",
     "spectators must be true or false"),
    ("servers:\n  - {server: a, game: daa, practice: 1}", "practice must be true or false"),
    ("servers:\n  - {server: a, game: daa, practice: true, min_coins: 200}",
     "min_coins must be 0"),
    ("servers:\n  - {server: a, game: daa, base: 1, min_coins: 0, ai_fill_after_s: -1}",
     "ai_fill_after_s must be"),
    ("servers:\n  - {server: a, game: daa, base: 1, min_coins: 0, ai_fill_after_s: soon}",
     "ai_fill_after_s must be"),
    ("servers:\n  - {server: a, game: daa, practice: true, ai_fill_after_s: 5}",
     "no ai_fill_after_s"),
    ("servers:\n  - {server: a, game: daa, base: 1, min_coins: 0}\n"
     "  - {server: a, game: daa, base: 1, min_coins: 0}", "twice"),
    # Every game's options are checked by its engine, the same
    # room-wide ones for all.
    ("servers:\n  - {server: a, game: doudizhu, base: 1, min_coins: 0, "
     "options: {jokers_as_wings: 1}}", "jokers_as_wings"),
    ("servers:\n  - {server: a, game: hunzhan, base: 1, min_coins: 0, "
     "options: {fee_rate: 2}}", "fee_rate"),
    ("servers:\n  - {server: a, game: daa, base: 1, min_coins: 0, options: {decks: 2}}",
     "unknown option"),
])
def test_malformed_files_are_refused(text: str, names: str) -> None:
    with pytest.raises(RoomsConfigError, match=names):
        parse(text)
