"""A bot presses start once and waits while the room shows its seat ready;
it presses again when a newer room no longer does (paiju/tools/bots.py)."""

from __future__ import annotations

import random
from typing import Any

from paiju.tools.bots import Bot, Stats


def _room(version: int, ready: bool, seat: int = 1, name: str = "b1") -> dict[str, Any]:
    return {"type": "room_changed", "room": "bdou000-01", "state": "waiting",
            "version": version,
            "seats": [{"seat": 0, "name": "other", "ready": True},
                      {"seat": seat, "name": name, "ready": ready}]}


def _bot() -> Bot:
    return Bot("ws://127.0.0.1:9/ws", "b1", "doudizhu", "bdou000-01", 1, 1, (0.0, 0.0),
               Stats(), random.Random(1))


def test_a_seat_shown_ready_is_not_pressed_again() -> None:
    bot = _bot()
    assert bot.seat_ready is False
    bot._on_event(_room(3, ready=True))
    assert bot.seat_ready is True and bot.room_state == "waiting"
    # a newer room without the press (an absent seat marked, a start undone)
    bot._on_event(_room(4, ready=False))
    assert bot.seat_ready is False


def test_an_older_room_does_not_undo_a_newer_one() -> None:
    bot = _bot()
    bot._on_event(_room(5, ready=True))
    bot._on_event(_room(4, ready=False))
    assert bot.seat_ready is True


def test_another_players_ready_seat_is_not_the_bots() -> None:
    bot = _bot()
    bot._on_event(_room(2, ready=True, seat=2))
    assert bot.seat_ready is False
    bot._on_event(_room(3, ready=True, name="someone-else"))
    assert bot.seat_ready is False
