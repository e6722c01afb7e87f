"""Rules errors with the stable codes of shared/spec/records.md.

Codes are snake_case and never renamed; new ones may be added. An engine that
raises :class:`RulesError` from ``apply`` has left its state exactly as it was.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

#: Every code an engine may raise, with what it means. Codes from records.md
#: first, then paiju's own additions.
CODES: dict[str, str] = {
    "not_your_turn": "another seat is to act",
    "wrong_phase": "this action does not belong to the game's current phase",
    "cards_not_in_hand": "the seat does not hold these cards",
    "invalid_combination": "these cards form no combination the game allows here",
    "does_not_beat": "the play does not beat the standing play",
    "must_follow_suit": "the seat must follow the led suit",
    "must_follow_shape": "the seat must follow the led shape",
    "cannot_pass": "passing is not allowed now",
    "must_beat_points": "points are in the trick and the seat can beat them (hunzhan)",
    "cannot_dump_points": "a point card that does not beat the trick (hunzhan)",
    "declare_too_weak": "the declaration does not overcall the standing one",
    "not_eligible": "this seat may not take this action (e.g. rob after no_call)",
    "bad_deal": "the deal is not exactly the game's deck",
    "unknown_action": "no such action type in this game",
    "malformed_cards": "a card is not in the notation of records.md",
    "malformed_action": "the action is not a well-formed object",
    "game_over": "the game has finished",
    "bad_options": "a rule option is unknown or out of range",
    "wrong_count": "the wrong number of cards (e.g. bury)",
}


class RulesError(Exception):
    """An action or a deal the rules refuse.

    ``code`` is one of :data:`CODES`; ``message`` says why, for people.
    """

    def __init__(self, code: str, message: str = "") -> None:
        if code not in CODES:
            raise ValueError(f"unknown rules error code {code!r}")
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code
        self.message = message or CODES[code]


@contextmanager
def reading_deal() -> Iterator[None]:
    """Around the reading of a given deal (a mapping from a game record):
    a missing key or any card error becomes ``RulesError("bad_deal")`` with
    the reason kept; a ``bad_deal`` passes as it is."""
    try:
        yield
    except KeyError as e:
        raise RulesError("bad_deal", f"the deal lacks {e}") from e
    except RulesError as e:
        if e.code == "bad_deal":
            raise
        raise RulesError("bad_deal", e.message) from e
