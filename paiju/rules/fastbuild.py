"""Building :class:`~paiju.rules.engine.Action` and :class:`~paiju.rules.engine.Event`
objects without their frozen-dataclass ``__init__``, for the engines' hot paths
(one home for daa's and doudizhu's fast building).

:func:`event`, :func:`play_action` and :func:`play_actions` build the objects;
an object built this way compares and hashes like one built normally (tested
in tests/rules/test_fastbuild.py). For the hottest loops the raw parts are
public too: ``new(Action)`` makes an empty object, the ``set_*`` slot setters
fill it, and ``consume(iterator, 0)`` runs an iterator to its end keeping
nothing (for ``map`` over setters).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from itertools import repeat
from typing import Any

from paiju.rules.cards import Card
from paiju.rules.engine import Action, Event

#: ``new(Action)`` / ``new(Event)``: an object with no field set yet (``object.__new__``).
new: Any = object.__new__
#: The slot setters: ``set_action_seat(action, seat)`` and so on.
set_action_seat: Callable[[Action, int | None], None] = vars(Action)["seat"].__set__
set_action_type: Callable[[Action, str], None] = vars(Action)["type"].__set__
set_action_cards: Callable[[Action, tuple[Card, ...]], None] = vars(Action)["cards"].__set__
set_action_dealt: Callable[[Action, int | None], None] = vars(Action)["dealt"].__set__
set_event_type: Callable[[Event, str], None] = vars(Event)["type"].__set__
set_event_data: Callable[[Event, dict[str, Any]], None] = vars(Event)["data"].__set__
set_event_to: Callable[[Event, int | None], None] = vars(Event)["to"].__set__
consume = deque


def event(typ: str, data: dict[str, Any], to: int | None = None) -> Event:
    """``Event(typ, data, to)``, built without the dataclass's ``__init__``."""
    e: Event = new(Event)
    set_event_type(e, typ)
    set_event_data(e, data)
    set_event_to(e, to)
    return e


def play_action(seat: int, cards: tuple[Card, ...]) -> Action:
    """``Action(seat, "play", cards)``, built without the dataclass's ``__init__``."""
    a: Action = new(Action)
    set_action_seat(a, seat)
    set_action_type(a, "play")
    set_action_cards(a, cards)
    set_action_dealt(a, None)
    return a


def play_actions(seat: int, plays: list[tuple[Card, ...]]) -> list[Action]:
    """``[Action(seat, "play", cards) for cards in plays]``, built without the
    frozen dataclass's ``__init__``: the same objects, several times faster
    (an engine's ``legal_actions`` builds a thousand of them per game). Long
    lists (a lead) set each field in one ``map`` pass over all the actions."""
    n = len(plays)
    if n > 8:
        out: list[Action] = list(map(new, repeat(Action, n)))
        consume(map(set_action_seat, out, repeat(seat, n)), 0)
        consume(map(set_action_type, out, repeat("play", n)), 0)
        consume(map(set_action_cards, out, plays), 0)
        consume(map(set_action_dealt, out, repeat(None, n)), 0)
        return out
    make, set_seat, set_type, set_cards, set_dealt = (
        new, set_action_seat, set_action_type, set_action_cards, set_action_dealt)
    out = []
    append = out.append
    for cards in plays:
        a = make(Action)
        set_seat(a, seat)
        set_type(a, "play")
        set_cards(a, cards)
        set_dealt(a, None)
        append(a)
    return out
