"""A player's record: ``history`` (战绩), ``replay``, ``stats`` and
``rankings`` (docs/client-protocol.md "History, replays and rankings").

The ledger serves the history, the stats and the rankings (GetGames,
GetStats, GetRankings); a
finished game's record comes from the table service (GetRecord, any instance
registered in NATS or of ``PAIJU_TABLE_ADDRS``: they share the record store).
Each replay step is computed here through the game's rules engine (paiju.tools.replay.steps); the
browser only draws it. A replay opens for the game's own players and, with a
replay link (services.gateway.adapters.replay_links), for operators, and with a
player's shared link (commands.shares) for anyone until it is revoked.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import grpc

from paiju.ledger.v1 import ledger_pb2
from paiju.rules import load as load_game
from paiju.runtime.natsconn import NATS_ERRORS
from paiju.table.v1 import table_pb2, table_pb2_grpc
from paiju.tools.replay import RecordError, steps
from services.gateway import metrics
from services.gateway.adapters import replay_links
from services.gateway.adapters.auth import PLAYER_ID
from services.gateway.adapters.backends import CALL_TIMEOUT, call, client_error, counted
from services.gateway.application.commands.lobby import SERVER_ID
from services.gateway.application.connection import Connection
from services.gateway.domain.protocol import ClientError, field, shown

log = logging.getLogger("paiju.gateway")
T = TypeVar("T")

#: Games a connection keeps replayed (their steps) for stepping through.
KEPT_REPLAYS = 2
#: Longest game id the gateway asks for.
MAX_GAME_ID = 160


def _partners(game: str) -> bool:
    """Whether ``game`` seats partners together (its rules' ``partners``;
    False for a game this gateway does not know)."""
    try:
        return load_game(game).presentation.partners
    except KeyError:
        return False


def _result(points: int) -> str:
    return "win" if points > 0 else "loss" if points < 0 else "draw"


def _optional_int(args: dict[str, Any], name: str, low: int, high: int) -> int:
    """``args[name]``, a whole number ``low``-``high``; 0 (the ledger's
    default) where it is absent or null; ``bad_request`` otherwise."""
    value = args.get(name)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ClientError("bad_request", f"'{name}' is a whole number {low}-{high}")
    return value


async def history(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """``history``: my settled games, newest first, ``limit`` (1-100, default
    20) a page, older than ``before`` (the previous page's ``next``)."""
    limit = _optional_int(args, "limit", 1, 100)
    before = _optional_int(args, "before", 0, 2**63 - 1)
    resp = await call(s.gw.backends.ledger.GetGames, ledger_pb2.GetGamesRequest(
        player=s.player, limit=limit, before=before))
    metrics.HISTORY_PAGES.inc()
    games = []
    for g in resp.games:
        players = [{"seat": p.seat, "player": p.player, "name": p.name, "points": p.points,
                    "coins": p.coins, "fee": p.fee} for p in g.players]
        games.append({
            "game_id": g.game_id, "ts_ms": g.ts_ms, "server": g.server, "room": g.room,
            "game": g.game, "reason": g.reason, "seat": g.seat, "points": g.points,
            "coins": g.coins, "fee": g.fee, "result": _result(g.points), "players": players,
            "opponents": [p["name"] for p in players if p["player"] != s.player],
            "partners": _partners(g.game)})
    return {"games": games, "next": resp.next_before}


#: The rankings' windows (the ledger's): the last 7 UTC days, the UTC
#: calendar month so far, all time.
WINDOWS = ("week", "season", "all")


def _optional_str(args: dict[str, Any], name: str, default: str) -> str:
    """``args[name]``, a string; ``default`` where it is absent or null;
    ``bad_request`` otherwise."""
    value = args.get(name)
    if value is None:
        return default
    if not isinstance(value, str):
        raise ClientError("bad_request", f"'{name}' is a string")
    return value


async def stats(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """``stats``: ``player``'s (default mine) stats per game from the
    ledger's journal, only ``game``'s where given: ``{player, name, games:
    [{game, games, wins, losses, draws, win_rate, best, worst, escapes,
    coins, first_ms, last_ms, played_ms}]}``. Refusals: ``bad_request`` (a player id
    or game that is no such string), ``no_such_player``."""
    player = _optional_str(args, "player", s.player)
    game = _optional_str(args, "game", "")
    if not PLAYER_ID.fullmatch(player):
        raise ClientError("bad_request", "'player' is a player id")
    if game:
        try:
            load_game(game)
        except KeyError:
            raise ClientError("bad_request", f"no game {shown(game)}") from None
    try:
        resp = await call(s.gw.backends.ledger.GetStats,
                          ledger_pb2.GetStatsRequest(player=player, game=game))
    except ClientError as e:
        if e.code == "unknown_player":
            raise ClientError("no_such_player", f"no player {shown(player)}") from e
        raise
    metrics.STATS_VIEWED.inc()
    return {"player": resp.player, "name": resp.name, "games": [
        {"game": g.game, "games": g.games, "wins": g.wins, "losses": g.losses, "draws": g.draws,
         "win_rate": round(g.wins / g.games, 4) if g.games else 0.0, "best": g.best,
         "worst": g.worst, "escapes": g.escapes, "coins": g.coins, "first_ms": g.first_ms,
         "last_ms": g.last_ms, "played_ms": g.played_ms} for g in resp.games]}


async def rankings(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """``rankings``: ``server``'s coins won over ``window`` (``week``, the
    default: the last 7 UTC days; ``season``: the UTC calendar month;
    ``all``), the top ``limit`` (1-100, default 50) and my own row (``me``,
    null without a game there)."""
    server = field(args, "server", str)
    if not SERVER_ID.fullmatch(server):
        raise ClientError("no_such_server", f"no server {shown(server)}")
    limit = _optional_int(args, "limit", 1, 100)
    window = _optional_str(args, "window", "week")
    if window not in WINDOWS:
        raise ClientError("bad_request", f"'window' is one of {', '.join(WINDOWS)}")
    resp = await call(s.gw.backends.ledger.GetRankings, ledger_pb2.GetRankingsRequest(
        server=server, player=s.player, limit=limit, window=window))
    metrics.RANKINGS_VIEWED.inc()

    def row(r: ledger_pb2.RankRow) -> dict[str, Any]:
        return {"rank": r.rank, "player": r.player, "name": r.name, "coins": r.coins,
                "games": r.games}
    return {"server": resp.server, "window": window, "from_ms": resp.from_ms,
            "to_ms": resp.to_ms,
            "rows": [row(r) for r in resp.rows], "players": resp.players,
            "me": row(resp.me) if resp.HasField("me") else None}


async def record_sources(s: Connection) -> list[str]:
    """The table instances to ask for a record: those registered now (draining
    ones too; the registry's last reading where NATS does not answer) and
    those of ``PAIJU_TABLE_ADDRS``."""
    registry = s.gw.table_instances
    try:
        await registry.refresh()
    except NATS_ERRORS as e:
        log.warning("reading the table registry failed: %s", e)
    listed = sorted(registry.instances, key=lambda a: -int(registry.instances[a].get("at", 0)))
    return list(dict.fromkeys([*listed, *s.gw.config.table_addrs]))


async def fetch_record(s: Connection, game_id: str) -> dict[str, Any]:
    """The stored record of ``game_id`` from the first table instance that
    has it (:func:`record_sources`: they share the record store, so the first
    that answers decides); ``no_record`` where none has, ``unavailable``
    where none answered."""
    unreachable: ClientError | None = None
    for address in await record_sources(s):
        try:
            with counted():
                resp = await s.gw.backends.table(address).GetRecord(
                    table_pb2.GetRecordRequest(game_id=game_id), timeout=CALL_TIMEOUT)
        except grpc.aio.AioRpcError as e:
            if e.code() == grpc.StatusCode.NOT_FOUND:
                continue
            unreachable = client_error(e)
            continue
        record: dict[str, Any] = json.loads(resp.json)
        return record
    if unreachable is not None:
        raise unreachable
    raise ClientError("no_record", f"no finished game {shown(game_id)}")


#: Answers that are the table service's (not an unreachable instance's).
_ANSWERED = (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.PERMISSION_DENIED,
             grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.INVALID_ARGUMENT)


async def on_table(s: Connection,
                    ask: Callable[[table_pb2_grpc.TableServiceStub], Awaitable[T]]) -> T:
    """``ask`` the first table instance that answers (they share the store);
    its refusal as a client error; ``unavailable`` where none answered."""
    unreachable = ClientError("unavailable", "no table instance answered; try again")
    for address in await record_sources(s):
        try:
            with counted():
                return await ask(s.gw.backends.table(address))
        except grpc.aio.AioRpcError as e:
            if e.code() in _ANSWERED:
                raise client_error(e) from e
            unreachable = client_error(e)
    raise unreachable


async def check_share(s: Connection, share: str, game_id: str) -> None:
    """A shared link's share is of ``game_id`` and not revoked: ``revoked``
    otherwise (a share the store does not know is ``bad_link``)."""
    try:
        resp = await on_table(s, lambda t: t.GetShare(
            table_pb2.GetShareRequest(share=share), timeout=CALL_TIMEOUT))
    except ClientError as e:
        if e.code == "no_share":
            raise ClientError("bad_link", "the replay link names no share") from e
        raise
    if resp.game_id != game_id:
        raise ClientError("bad_link", "the replay link is for another game")
    if resp.revoked_ms:
        raise ClientError("revoked", "its owner has revoked this replay link")


async def _viewer(s: Connection, args: dict[str, Any], game_id: str) -> str:
    """``operator`` for a valid operator's replay link of ``game_id``,
    ``shared`` for a player's shared link whose share is not revoked,
    ``player`` for a signed-in connection (its seat is checked against the
    record); refusals ``bad_link``, ``revoked``, ``unauthenticated``."""
    link = args.get("link")
    if link is not None:
        cfg = s.gw.config
        try:
            linked = replay_links.verify(cfg.token_secret, link, cfg.dev_mode)
        except replay_links.BadLink as e:
            raise ClientError("bad_link", str(e)) from e
        if linked.game != game_id:
            raise ClientError("bad_link", "the replay link is for another game")
        if linked.share:
            await check_share(s, linked.share, game_id)
            return "shared"
        return "operator"
    if s.identity is None:
        raise ClientError("unauthenticated", "sign in first (login or auth), or open a replay link")
    return "player"


async def replay(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """``replay``: step ``step`` (0 = the deal, default 0) of the finished game
    ``game_id``, every hand face up, as the rules engine replays its record.
    Opens for the game's own players, or with ``link`` (an operator's replay
    link or a player's shared one, checked at each call). Refusals:
    ``no_record``, ``not_your_game``, ``bad_link``, ``revoked``,
    ``no_such_step``, ``bad_record``."""
    game_id = field(args, "game_id", str)
    if not 0 < len(game_id) <= MAX_GAME_ID:
        raise ClientError("no_record", "no such game id")
    viewer = await _viewer(s, args, game_id)
    who = f"player:{s.player}" if viewer == "player" else viewer
    kept = s.replays
    opened = kept.get(game_id)
    if opened is None or opened["who"] != who:
        record = await fetch_record(s, game_id)
        seated = [p["player"] for p in record.get("players", [])]
        if viewer == "player" and s.player not in seated:
            metrics.REPLAYS_REFUSED.inc()
            raise ClientError("not_your_game", "a replay opens for the game's own players")
        try:
            frames = steps(record)
        except RecordError as e:
            raise ClientError("bad_record", str(e)) from e
        opened = {"who": who, "record": record, "steps": frames}
        kept[game_id] = opened
        while len(kept) > KEPT_REPLAYS:
            kept.popitem(last=False)
        metrics.REPLAYS_OPENED.labels(viewer).inc()
        if viewer == "shared":
            metrics.REPLAY_SHARES.labels("opened").inc()
    kept.move_to_end(game_id)
    frames = opened["steps"]
    step = _optional_int(args, "step", 0, 10**6)
    if step >= len(frames):
        raise ClientError("no_such_step", f"steps run 0-{len(frames) - 1}")
    record = opened["record"]
    return {
        "game_id": game_id, "game": record["game"], "server": record.get("server", ""),
        "room": record.get("room", ""), "reason": record.get("reason", ""),
        "players": record.get("players", []), "settlement": record.get("settlement", []),
        "started_at": record.get("started_at"), "finished_at": record.get("finished_at"),
        "steps": len(frames), "tricks": [f["step"] for f in frames if f["trick_won"]],
        "rules": load_game(record["game"]).client_rules(),
        "step": step, "frame": frames[step], "viewer": viewer}
