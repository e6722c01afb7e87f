"""The NATS subjects of shared/spec/events.md ("Subjects"), written once.

Every publisher (lobby, table, ledger) and the gateway, which subscribes
clients to them, build subject names here. ``server``, ``room`` and
``player`` are single subject tokens (ids without dots, spaces or wildcards:
the lobby's rooms file and the ledger's player ids ensure it).
"""

from __future__ import annotations


def lobby_rooms(server: str) -> str:
    """``paiju.lobby.<server>.rooms``: ``room_changed`` of a coin server (金币服务器)."""
    return f"paiju.lobby.{server}.rooms"


def lobby_private_room(server: str, room: str) -> str:
    """``paiju.lobby.<server>.room.<room>``: ``room_changed`` of a private room
    (好友房), for its seated players only (never on the server's subject)."""
    return f"paiju.lobby.{server}.room.{room}"


def table_events(room: str) -> str:
    """``paiju.table.<room>.events``: the public events of the game in ``room``."""
    return f"paiju.table.{room}.events"


def player_events(player: str) -> str:
    """``paiju.player.<player>.events``: what only ``player`` may see (its hand,
    ``your_turn``, ``kitty``, ``view``, ``balance_changed``)."""
    return f"paiju.player.{player}.events"


def player_control(player: str) -> str:
    """``paiju.player.<player>.control``: ``session_started``, so that other
    gateways close ``player``'s older connection."""
    return f"paiju.player.{player}.control"


def chat(room: str) -> str:
    """``paiju.chat.<room>``: the quick chat (快捷聊天) of ``room``: fixed phrases
    and emotes, published by the gateway for the sender, read by the gateways
    of the room's seated players and spectators (no table ``seq``)."""
    return f"paiju.chat.{room}"


def ai_seat(game: str) -> str:
    """``paiju.ai.seat.<game>``: the lobby's request for an AI player (机器人)
    at a free seat of a practice room of ``game`` (JSON ``{room, server, game,
    seat}``), answered by one ``paiju ai --pool`` worker of the queue group
    :data:`AI_POOL` (``{ok: true, name}``: its AI sits there; ``{ok: false}``:
    none is free)."""
    return f"paiju.ai.seat.{game}"


#: The queue group of the ``paiju ai --pool`` workers: one answers each request.
AI_POOL = "paiju-ai"


#: What presence watchers (lobby, table) subscribe: every gateway's presence.
PRESENCE_ALL = "paiju.presence.*.*"


def presence(gateway: str) -> str:
    """``paiju.presence.<name>.<process>``: the sessions of one gateway process
    (``connect``, ``disconnect``, ``heartbeat``, ``gateway_down``; see
    :mod:`paiju.presence.book.book`). ``gateway`` is the process's id,
    ``<name>.<process>``: the replica's name (its NATS user, allowed
    :func:`own_presence` only) and a token new with each process."""
    return f"paiju.presence.{gateway}"


def own_presence(name: str) -> str:
    """``paiju.presence.<name>.*``: every process of gateway replica ``name``
    (what that replica's NATS user may publish, and no other)."""
    return f"paiju.presence.{name}.*"
