"""Review tests shared by every engine (second pair of eyes on the seeds and
records.md). Expectations written by hand from shared/spec/records.md."""

from __future__ import annotations

import random

import pytest

from paiju.replay import replay
from paiju.rules import load

GAMES_WITH_DECLARING = ["hunzhan", "shengji", "daa"]


@pytest.mark.parametrize("name", GAMES_WITH_DECLARING)
@pytest.mark.parametrize("seat", [0, 4, 7, -1])
def test_end_declare_with_a_seat_is_refused(name: str, seat: int) -> None:
    """records.md, action table: ``end_declare`` is sent by the system with seat
    ``null``. A record whose ``end_declare`` names a seat (in range or not) is
    refused with ``malformed_action`` and changes nothing; the replay goes on
    (it used to close the window in shengji/daa, and to crash with an
    IndexError for a seat beyond the table)."""
    deal = load(name).random_deal({}, random.Random(5))
    record = {
        "game": name,
        "options": {},
        "deal": deal,
        "actions": [
            {"seat": seat, "type": "end_declare"},
            {"seat": None, "type": "end_declare"},
        ],
    }
    out = replay(record)
    assert out["actions"][0]["ok"] is False
    assert out["actions"][0]["error"] == "malformed_action"
    assert out["actions"][1]["ok"] is True
