"""The reconciler's pure parts (services/lobby/application/reconcile.py, room_rules.void_game):
which game ids a room runs, what voiding a game does to the room, the
settings from the environment."""

from __future__ import annotations

import pytest

from services.lobby.application.reconcile import ReconcileSettings, runs
from services.lobby.domain import room_rules
from services.lobby.domain.room_rules import Room, Seat

ROOM = "dz-01"

def test_runs_matches_the_game_and_its_redeals() -> None:
    assert runs(["g1"], "g1") and runs(["x", "g1.r2"], "g1")
    assert not runs([], "g1") and not runs(["g10", "g1x", "xg1"], "g1")


def test_void_game_unreadies_keeps_the_carry_and_stands_up_the_poor() -> None:
    room = Room(ROOM, "dz", "doudizhu", 3, seats={
        0: Seat(0, "a", "A", 500, True), 1: Seat(1, "b", "B", 500, True),
        2: Seat(2, "c", "C", 500, True)},
        game_id="g1", table_instance="t:1", carry={"no_call_streak": 1}, version=7)
    # The ledger settled the game before it was lost: c has 90 < 100; b's
    # balance could not be read (kept as it was).
    after = room_rules.void_game(room, "g1", {"a": 610, "c": 90}, 100, now_ms=0,
                             ready_seconds=20)
    assert after.state == "waiting" and after.game_id == "" and after.table_instance == ""
    assert after.seats == {0: Seat(0, "a", "A", 610, False), 1: Seat(1, "b", "B", 500, False)}
    assert after.carry == {"no_call_streak": 1} and after.kick_at_ms is None
    assert room_rules.void_game(room, "g2", {}, 100, now_ms=0, ready_seconds=20) == room


def test_settings_from_the_environment() -> None:
    assert ReconcileSettings.from_env({}) == ReconcileSettings(5.0, 30.0, 60.0)
    assert ReconcileSettings.from_env({
        "PAIJU_LOBBY_RECONCILE_SECONDS": "2", "PAIJU_LOBBY_START_GRACE_SECONDS": "45",
        "PAIJU_LOBBY_TABLE_LOST_SECONDS": "120"}) == ReconcileSettings(2.0, 45.0, 120.0)
    for bad in ("0", "-1", "soon"):
        with pytest.raises(ValueError, match="PAIJU_LOBBY_TABLE_LOST_SECONDS"):
            ReconcileSettings.from_env({"PAIJU_LOBBY_TABLE_LOST_SECONDS": bad})
