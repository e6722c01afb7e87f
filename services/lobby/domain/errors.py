"""The lobby's refusals: a stable reason code, a message, and a gRPC status.

Codes (docs/lobby.md): ``room_started``, ``seat_taken``, ``not_enough_coins``,
``already_seated``, ``no_such_room``, ``no_such_seat`` (a Sit refused: all
FAILED_PRECONDITION), ``not_seated``, ``no_such_server``, ``no_such_game``
(NOT_FOUND where a lookup finds nothing), ``invalid_argument``,
``ledger_unavailable`` / ``no_table_instance`` (UNAVAILABLE), ``busy`` (ABORTED:
too many compare-and-set conflicts in a row), ``not_connected`` (FAILED_PRECONDITION:
a start pressed by a player without a live session), ``no_result`` (NOT_FOUND: no
finished game of that player); a quick start refused: ``no_free_room``
(FAILED_PRECONDITION: every affordable room of the game is full or started),
``no_such_game_type`` (NOT_FOUND: no server plays that game), and
``not_enough_coins`` / ``already_seated`` as for Sit; a relief claim
refused: ``relief_off`` (FAILED_PRECONDITION: none offered), ``not_eligible``
(FAILED_PRECONDITION: the balance reaches a server of the game),
``relief_spent`` (RESOURCE_EXHAUSTED: the day's claims are used),
``claim_id_conflict`` (ALREADY_EXISTS), ``bad_claim_id`` (INVALID_ARGUMENT),
``no_such_game_type`` (NOT_FOUND); private rooms (好友房): ``too_many_rooms``
(FAILED_PRECONDITION: the player's open private rooms are at the limit),
``too_many_attempts`` (RESOURCE_EXHAUSTED: the minute's code tries are used),
``no_such_code`` (NOT_FOUND), ``not_owner`` (PERMISSION_DENIED).
"""

from __future__ import annotations

import grpc

ROOM_STARTED = "room_started"
SEAT_TAKEN = "seat_taken"
NOT_ENOUGH_COINS = "not_enough_coins"
ALREADY_SEATED = "already_seated"
NO_SUCH_ROOM = "no_such_room"
NO_SUCH_SEAT = "no_such_seat"
NOT_SEATED = "not_seated"
NO_SUCH_SERVER = "no_such_server"
NO_SUCH_GAME = "no_such_game"
INVALID_ARGUMENT = "invalid_argument"
LEDGER_UNAVAILABLE = "ledger_unavailable"
NO_TABLE_INSTANCE = "no_table_instance"
BUSY = "busy"
NOT_CONNECTED = "not_connected"
NO_RESULT = "no_result"
NO_FREE_ROOM = "no_free_room"
NO_SUCH_GAME_TYPE = "no_such_game_type"
RELIEF_OFF = "relief_off"
TOO_MANY_ROOMS = "too_many_rooms"
#: A private room's options are not among its game's player choices.
BAD_OPTIONS = "bad_options"
TOO_MANY_ATTEMPTS = "too_many_attempts"
NO_SUCH_CODE = "no_such_code"
NOT_OWNER = "not_owner"

#: The reasons a Sit is refused (the label values of paiju_lobby_sits_refused_total).
SIT_REFUSALS = (ROOM_STARTED, SEAT_TAKEN, NOT_ENOUGH_COINS, ALREADY_SEATED, NO_SUCH_ROOM,
                NO_SUCH_SEAT)

#: The results of a quick start (the label values of paiju_lobby_quick_starts_total).
QUICK_START_RESULTS = ("seated", NOT_ENOUGH_COINS, NO_FREE_ROOM, ALREADY_SEATED,
                       NO_SUCH_GAME_TYPE)

#: Trailing metadata key that carries the reason code.
METADATA_KEY = "paiju-error"


class LobbyError(Exception):
    """A refusal: ``code`` (stable, snake_case), ``message``, gRPC ``status``."""

    def __init__(self, code: str, message: str,
                 status: grpc.StatusCode = grpc.StatusCode.FAILED_PRECONDITION) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status


def not_found(code: str, message: str) -> LobbyError:
    """A NOT_FOUND refusal."""
    return LobbyError(code, message, grpc.StatusCode.NOT_FOUND)


def invalid(message: str) -> LobbyError:
    """An INVALID_ARGUMENT refusal (code ``invalid_argument``)."""
    return LobbyError(INVALID_ARGUMENT, message, grpc.StatusCode.INVALID_ARGUMENT)


def unavailable(code: str, message: str) -> LobbyError:
    """An UNAVAILABLE refusal (a dependency did not answer)."""
    return LobbyError(code, message, grpc.StatusCode.UNAVAILABLE)


def reason_of(error: grpc.aio.AioRpcError) -> str:
    """The reason code of a lobby error as a client sees it (trailing metadata
    ``paiju-error``, else the message's prefix before ``:``)."""
    for key, value in error.trailing_metadata() or ():
        if key == METADATA_KEY:
            return str(value)
    return (error.details() or "").split(":", 1)[0]
