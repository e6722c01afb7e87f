"""Coin servers (金币服务器) and their rooms, read from a YAML file.

The format is described at the top of the built-in default,
``services/lobby/rooms.yaml`` (used when ``PAIJU_ROOMS_FILE`` is empty). Every
lobby process of one deployment must read the same file: rooms are identified
by ``<server>-NN`` in the shared database.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from paiju.rules import ENGINES, RulesError
from paiju.rules import load as load_engine

DEFAULT_FILE = Path(__file__).parent.parent / "rooms.yaml"

_ID = re.compile(r"^[a-z0-9_-]{1,48}$")
#: A private room's id (好友房): ``<server>-x<12 hex>`` (docs/lobby.md).
PRIVATE_ROOM = re.compile(r"^(?P<server>[a-z0-9_-]{1,48})-x[0-9a-f]{12}$")


class RoomsConfigError(ValueError):
    """The rooms file is malformed; the message names the server and the key."""


@dataclass(frozen=True)
class CoinServer:
    """One coin server: a game at a coin level with ``rooms`` rooms of ``seats`` seats.

    ``base``: coins per point unit; ``unit``: points per unit; ``min_coins``:
    coins needed to sit; ``fee_rate``: the house's share of winnings;
    ``ready_seconds``: time the last unready player of a full room has;
    ``idle_disconnect_seconds``: how long a seated player may be absent outside a
    game before it is stood up (rulings.md "Shared by all games", 30 s);
    ``options``: the game's rule options (rulings.md); ``spectators``: the
    room-wide option whether players may watch (旁观) a started room (default
    true); ``practice``: a practice server (练习场), where no coins move: its
    ``min_coins`` is 0 and its games are not settled by the ledger (every
    settlement row has 0 coins and 0 fee); ``ai_fill_after_s``: on a coin
    server, seconds after a player sits in a waiting room after which the
    lobby asks the AI pool for its still free seats (0: never, the default).
    """

    server: str
    name: str
    game: str
    base: int
    unit: int
    min_coins: int
    fee_rate: float
    rooms: int
    seats: int
    ready_seconds: int
    idle_disconnect_seconds: int = 30
    options: dict[str, Any] = field(default_factory=dict)
    spectators: bool = True
    practice: bool = False
    ai_fill_after_s: int = 0

    def room_ids(self) -> list[str]:
        """The ids of this server's rooms: ``<server>-01``, ``<server>-02``, …"""
        return [f"{self.server}-{i:02d}" for i in range(1, self.rooms + 1)]

    @property
    def options_json(self) -> str:
        """The rule options as a JSON object."""
        return json.dumps(self.options, ensure_ascii=False, sort_keys=True)


@dataclass(frozen=True)
class RoomsConfig:
    """Every coin server, in file order, and an index of rooms to their server."""

    servers: tuple[CoinServer, ...]

    def server(self, server: str) -> CoinServer | None:
        """The coin server ``server``, or None."""
        for s in self.servers:
            if s.server == server:
                return s
        return None

    def server_of_room(self, room: str) -> CoinServer | None:
        """The coin server that owns room id ``room`` (a configured room, or a
        private room ``<server>-x<12 hex>`` of a configured server), or None."""
        found = self._rooms().get(room)
        if found is None:
            private = PRIVATE_ROOM.match(room)
            if private is not None:
                found = self.server(private["server"])
        return found

    def _rooms(self) -> dict[str, CoinServer]:
        index: dict[str, CoinServer] | None = self.__dict__.get("_index")
        if index is None:
            index = {r: s for s in self.servers for r in s.room_ids()}
            object.__setattr__(self, "_index", index)
        return index

    def all_rooms(self) -> list[tuple[str, CoinServer]]:
        """Every (room id, server) pair."""
        return list(self._rooms().items())


def _int(entry: dict[str, Any], key: str, where: str, minimum: int) -> int:
    value = entry.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise RoomsConfigError(f"{where}: {key} must be an integer >= {minimum}, got {value!r}")
    return value


def _server(entry: Any, defaults: dict[str, Any], index: int) -> CoinServer:
    if not isinstance(entry, dict):
        raise RoomsConfigError(f"servers[{index}]: must be a mapping")
    merged = {**defaults, **entry}
    sid = merged.get("server")
    if not isinstance(sid, str) or not _ID.match(sid):
        raise RoomsConfigError(f"servers[{index}]: server must match [a-z0-9_-]+, got {sid!r}")
    where = f"server {sid}"
    game = merged.get("game")
    if not isinstance(game, str) or game not in ENGINES:
        raise RoomsConfigError(f"{where}: game must be one of {sorted(ENGINES)}, got {game!r}")
    engine = load_engine(game)
    fee_rate = merged.get("fee_rate", 0.02)
    if isinstance(fee_rate, bool) or not isinstance(fee_rate, int | float) or not (
            0 <= fee_rate < 1):
        raise RoomsConfigError(f"{where}: fee_rate must be a number in [0, 1), got {fee_rate!r}")
    options = merged.get("options") or {}
    if not isinstance(options, dict):
        raise RoomsConfigError(f"{where}: options must be a mapping")
    try:
        engine.check_options(options)
    except RulesError as e:
        raise RoomsConfigError(f"{where}: options: {e.message}") from e
    spectators = merged.get("spectators", True)
    if not isinstance(spectators, bool):
        raise RoomsConfigError(f"{where}: spectators must be true or false, got {spectators!r}")
    practice = merged.get("practice", False)
    if not isinstance(practice, bool):
        raise RoomsConfigError(f"{where}: practice must be true or false, got {practice!r}")
    if practice:
        if entry.get("min_coins", 0) != 0:
            raise RoomsConfigError(f"{where}: a practice server moves no coins: "
                                   f"min_coins must be 0 or absent, got {entry['min_coins']!r}")
        merged["min_coins"] = 0
        merged.setdefault("base", 1)
    merged.setdefault("ai_fill_after_s", 0)
    fill = _int(merged, "ai_fill_after_s", where, 0)
    if practice and fill:
        raise RoomsConfigError(f"{where}: a practice server fills its seats with AI at once: "
                               "no ai_fill_after_s")
    merged.setdefault("unit", engine.policy.points_unit)
    merged.setdefault("ready_seconds", 20)
    merged.setdefault("idle_disconnect_seconds", 30)
    merged.setdefault("rooms", 6)
    return CoinServer(
        server=sid, name=str(merged.get("name") or sid), game=game,
        base=_int(merged, "base", where, 1), unit=_int(merged, "unit", where, 1),
        min_coins=_int(merged, "min_coins", where, 0), fee_rate=float(fee_rate),
        rooms=_int(merged, "rooms", where, 1), seats=engine.seats,
        ready_seconds=_int(merged, "ready_seconds", where, 1),
        idle_disconnect_seconds=_int(merged, "idle_disconnect_seconds", where, 1),
        options=dict(options), spectators=spectators, practice=practice,
        ai_fill_after_s=fill,
    )


def parse(text: str) -> RoomsConfig:
    """Parse the YAML text of a rooms file. Raises :class:`RoomsConfigError`."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise RoomsConfigError(f"not YAML: {e}") from e
    if not isinstance(data, dict) or not isinstance(data.get("servers"), list):
        raise RoomsConfigError("a rooms file is a mapping with a list 'servers'")
    defaults = data.get("defaults") or {}
    if not isinstance(defaults, dict):
        raise RoomsConfigError("defaults must be a mapping")
    servers = tuple(_server(e, defaults, i) for i, e in enumerate(data["servers"]))
    if not servers:
        raise RoomsConfigError("no servers")
    seen: set[str] = set()
    for s in servers:
        if s.server in seen:
            raise RoomsConfigError(f"server {s.server} appears twice")
        seen.add(s.server)
    config = RoomsConfig(servers)
    if len(config.all_rooms()) != sum(s.rooms for s in servers):
        raise RoomsConfigError("two servers give the same room id")
    return config


def load(path: str | Path = "") -> RoomsConfig:
    """Read the rooms file at ``path`` (empty: the built-in default).
    Raises :class:`RoomsConfigError` or ``OSError``."""
    return parse(Path(path or DEFAULT_FILE).read_text(encoding="utf-8"))
