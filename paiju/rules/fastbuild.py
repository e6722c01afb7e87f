"""Building :class:`~paiju.rules.engine.Action` and :class:`~paiju.rules.engine.Event`
objects without their frozen-dataclass ``__init__``, for the engines' hot paths.

``new(Action)`` makes an empty object; the ``set_*`` slot setters fill it. An
object built this way compares and hashes like one built normally (tested by
the engines that use it). ``consume(iterator, 0)`` runs an iterator to its end
keeping nothing (for ``map`` over setters).
"""

from __future__ import annotations

from collections import deque
from typing import Any

from paiju.rules.engine import Action, Event

new: Any = object.__new__
set_action_seat: Any = vars(Action)["seat"].__set__
set_action_type: Any = vars(Action)["type"].__set__
set_action_cards: Any = vars(Action)["cards"].__set__
set_action_dealt: Any = vars(Action)["dealt"].__set__
set_event_type: Any = vars(Event)["type"].__set__
set_event_data: Any = vars(Event)["data"].__set__
set_event_to: Any = vars(Event)["to"].__set__
consume = deque
