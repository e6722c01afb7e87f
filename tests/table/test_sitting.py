"""A sitting rebuilt from its log entries is the game it was (pure, no I/O),
and a game that stood still goes on with the time its clocks had left, at
least 10 s."""

from __future__ import annotations

import random
from typing import Any

import pytest

from paiju.rules import load
from services.table.domain.entries import Act, Created, Disconnected, Takeover, Timer, entry_of
from services.table.domain.options import TableOptions
from services.table.domain.outgoing import Seat, ms
from services.table.domain.sitting import Sitting, restore, spec_json
from services.table.domain.spec import GameSpec, Terms

T0 = 1_700_000_000.0


def created() -> Created:
    """The ``created`` entry of a doudizhu sitting at T0 (turns of 20 s)."""
    spec = GameSpec("gs1", "rs1", "s1", "doudizhu", {},
                    TableOptions(turn_seconds=20.0, deal_interval_ms=0),
                    tuple(Seat(i, f"s{i}", f"s{i}") for i in range(3)), Terms())
    deal = load("doudizhu").random_deal({}, random.Random(7))
    return Created(ms(T0), spec_json(spec), deal, [])


def started(first: Created) -> tuple[Sitting, list[dict[str, Any]]]:
    """A sitting from ``first`` and its log so far (as JSON)."""
    sitting = Sitting(first)
    return sitting, [sitting.first().logged(first)]


def test_a_restored_sitting_has_the_same_state_seqs_and_answers() -> None:
    live, entries = started(created())
    at = T0
    for seq in range(1, 7):
        at += 1.5
        seat = live.engine.to_act()[0]
        player = live.player_of(seat)
        action = live.hints(player)[0]
        entry = Act(ms(at), player, action.type, tuple(action.cards), seq)
        applied = live.apply(entry)
        assert applied.answer.ok and applied.events
        entries.append(applied.logged(entry))
    away = Disconnected(ms(at + 1), "s1", ms(at + 0.5))
    entries.append(live.apply(away).logged(away))
    again = restore(entries)
    now = at + 2
    for p in ("s0", "s1", "s2"):
        assert again.view(p, now) == live.view(p, now)
    assert again.actions == live.actions
    assert again.numbers.player_seq == live.numbers.player_seq
    # An action sent again after the rebuild gets the answer it got, and no event.
    repeat = again.apply(entry_of(entries[6]))
    assert repeat.answer.ok and not repeat.events
    assert again.public_seq == live.public_seq


def test_a_logged_entry_reads_back_as_the_entry_it_was() -> None:
    """The log's JSON shape: ``type``, the entry's fields (an action as
    ``{"type", "cards"}``), and what applying it gave; read back, the entry."""
    act = Act(ms(T0 + 1), "s0", "play", ("3S", "3H"), 4)
    assert act.json() == {"type": "act", "at": ms(T0 + 1), "player": "s0",
                          "action": {"type": "play", "cards": ["3S", "3H"]}, "client_seq": 4}
    logged = {**act.json(), "seq": 9, "player_seq": {"s0": 3}, "actions": []}
    assert entry_of(logged) == act
    moved = Takeover(ms(T0), ms(T0 - 5), "tb", "10.0.0.2:7000")
    assert entry_of(moved.json()) == moved
    with pytest.raises(ValueError, match="unknown log entry type"):
        entry_of({"type": "shuffle", "at": 0})


def test_a_replay_that_numbers_otherwise_is_refused() -> None:
    first = created()
    live, entries = started(first)
    seat = live.engine.to_act()[0]
    entry = Act(ms(T0 + 1), live.player_of(seat), "call", (), 1)
    logged = live.apply(entry).logged(entry)
    logged["seq"] += 1
    with pytest.raises(ValueError, match="replays to seq"):
        restore([*entries, logged])


def turn_deadline(s: Sitting) -> float:
    seat = s.engine.to_act()[0]
    deadline = s.turns.deadline(seat)
    assert deadline is not None
    return deadline


def test_takeover_goes_on_with_the_time_left_at_least_10_s() -> None:
    for left, expected in ((15.0, 15.0), (3.0, 10.0)):
        s, _ = started(created())
        # The turn began at T0 with 20 s; the game stood still `left` s before its end.
        stopped = T0 + 20 - left
        now = stopped + 42
        out = s.apply(Takeover(ms(now), ms(stopped), "tb", "127.0.0.1:2")).events
        assert turn_deadline(s) == ms(now + expected) / 1000
        types = [o.type for o in out]
        assert types[0] == "game_moved" and out[0].data["table_instance"] == "127.0.0.1:2"
        assert types.count("view") == 3 and types[-1] == "turn"
        assert out[-1].data["deadline"] == ms(now + expected)
        # Numbered on from the log: no gap, no repeat.
        public = [o.seq for o in out if o.player is None]
        assert public == [s.public_seq - 1, s.public_seq]


def test_the_time_away_counts_across_a_takeover() -> None:
    s, _ = started(created())
    seat = s.engine.to_act()[0]
    player = s.player_of(seat)
    # Away from T0 + 1 (budget 90 s); the owner died; taken over 100 s later.
    s.apply(Disconnected(ms(T0 + 1), player, ms(T0 + 1)))
    now = T0 + 101
    s.apply(Takeover(ms(now), ms(T0 + 2), "tb", "b"))
    # The budget ran out at T0 + 91: the seat escapes at once, at that time.
    assert s.next_deadline() == T0 + 91
    s.apply(Timer(ms(now)))
    assert s.finished and s.reason == "escape"
    assert s.engine.escaped == seat


def test_a_voided_sitting_stays_voided_when_rebuilt_and_takes_no_more_moves() -> None:
    """An operator's ``void`` (paiju admin end-game) is a log entry: an
    instance that takes the game over finds it ended, with no clock running,
    no action taken and who and why in its record (reason ``void``, no result)."""
    entries = [created().json(),
               {"type": "void", "at": ms(T0 + 5), "by": "ops-ann", "why": "stuck"}]
    again = restore(entries)
    game = again
    assert game.finished and game.reason == "void" and game.next_deadline() is None
    record = game.record()
    assert record["reason"] == "void" and "result" not in record
    assert record["void"] == {"by": "ops-ann", "why": "stuck", "at": ms(T0 + 5)}
    player = game.player_of(game.engine.to_act()[0])
    answer, out = game.act(player, "call", [], 1, T0 + 6)
    assert not answer.ok and not out
    event = game.finished_event([])
    assert event.data["reason"] == "void" and event.data["result"] is None


def test_a_log_written_before_rounds_replays_card_by_card() -> None:
    """A sitting logged before deals went by rounds (its ``created`` entry's
    ``table_options`` lack ``deal_by_rounds``) replays and goes on a card per
    step, as it was logged, so that a game handed over across a deploy in the
    middle of its deal keeps its numbering; a new sitting deals a round."""
    spec = GameSpec("gh1", "rh1", "s1", "hunzhan", {},
                    TableOptions(deal_interval_ms=100, deal_by_rounds=True),
                    tuple(Seat(i, f"h{i}", f"h{i}") for i in range(4)), Terms())
    deal = load("hunzhan").random_deal({}, random.Random(3))
    options = spec_json(spec)["table_options"]
    del options["deal_by_rounds"]
    old = Created(ms(T0), {**spec_json(spec), "table_options": options}, deal, [])
    live, entries = started(old)
    assert live.dealt == 1
    for k in range(1, 6):  # card k at T0 + 0.1 k: one timer entry each
        tick = Timer(ms(T0 + 0.1 * k))
        entries.append(live.apply(tick).logged(tick))
    assert live.dealt == 6
    again = restore(entries)  # raises where the replay numbers otherwise
    assert again.dealt == 6 and again.public_seq == live.public_seq
    new, _ = started(Created(ms(T0), spec_json(spec), deal, []))
    assert new.dealt == 4  # a round: a card to each of the 4 seats
