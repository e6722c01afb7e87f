"""``paiju admin``: the operator's console.

Every command calls the services over mutual TLS as the ``operator``
identity (``PAIJU_TLS_DIR``'s ``operator.pem``, paiju/security/identity.py), which
paiju/security/authz.py lets call the operator's RPCs and nothing that moves a game
for a player; each call names the person (``--by``, default the login name)
in the metadata ``x-paiju-operator`` (paiju/security/operator_calls.py), which the services
log and count with the call and keep with what it changed.

Commands (each prints one JSON object on standard output):

- ``find QUERY``: players by id prefix or name (ledger FindAccounts), with
  where each sits (lobby WhereIs);
- ``show PLAYER``: balance, recent journal entries, seat, last result;
- ``adjust PLAYER --coins N --reason WHY``: coins given (> 0) or taken (< 0), a
  journal transaction of kind ``adjust`` against ``house:adjustments``;
- ``kick PLAYER --reason WHY``: out of a waiting room (lobby Kick), or out of
  the running game (the owning table instance's Kick: an escape);
- ``games``: the games of every table instance (ListGames);
- ``end-game ROOM --reason WHY``: the room's game voided at the instance that
  runs it (table EndGame);
- ``audit``: the ledger's audit.

Addresses come from ``PAIJU_LEDGER_ADDR``, ``PAIJU_LOBBY_ADDR`` and
``PAIJU_TABLE_ADDRS`` (or ``--ledger`` / ``--lobby`` / ``--tables``); where
one is not set, the local ``paiju up``'s under the same settings
(``PAIJU_UP_PORT_BASE``, ``PAIJU_HOST``: :func:`paiju.tools.up.local_addresses`;
its first table instance).
Exit status 0 when done; 1 when a service refused (the reason code and
message on standard error); 2 for a bad setting or missing certificate.
"""

from __future__ import annotations

import getpass
import json
import sys
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, NoReturn, TypeVar

import grpc
import typer
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message

from paiju.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from paiju.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from paiju.security import identity
from paiju.security.operator_calls import HEADER
from paiju.table.v1 import table_pb2, table_pb2_grpc

app = typer.Typer(help="The operator's console: players, coins, rooms and games "
                       "(as the operator identity).", no_args_is_help=True)

#: Seconds each call may take.
TIMEOUT = 10.0
T = TypeVar("T")


@dataclass
class Target:
    """Where the services are, as whom to call them."""

    tls_dir: Path
    ledger: str
    lobby: str
    tables: tuple[str, ...]
    by: str


_target: list[Target] = []


@app.callback()
def options(
    tls_dir: Annotated[Path | None, typer.Option(
        help="folder of ca.pem, operator.pem, operator-key.pem "
             "(default: PAIJU_TLS_DIR, else PAIJU_DATA_DIR/tls as paiju up makes it)")] = None,
    ledger: Annotated[str | None, typer.Option(help="the ledger's address "
                                               "(default PAIJU_LEDGER_ADDR)")] = None,
    lobby: Annotated[str | None, typer.Option(help="the lobby's address "
                                              "(default PAIJU_LOBBY_ADDR)")] = None,
    tables: Annotated[str | None, typer.Option(help="table instances' addresses, comma "
                                               "separated (default PAIJU_TABLE_ADDRS)")] = None,
    by: Annotated[str | None, typer.Option(help="your name, kept with every action "
                                           "(default: your login name)")] = None,
) -> None:
    """Settings of every command."""
    from paiju.config import load
    from paiju.tools.up import UpError, local_addresses

    try:
        config = load("operator")
        local = local_addresses()
    except (ValueError, UpError) as e:
        _fail(2, str(e))
    folder = tls_dir or config.tls_dir or config.data_dir / "tls"
    _target[:] = [Target(folder, ledger or local["ledger"], lobby or local["lobby"],
                         tuple(a.strip() for a in (tables or local["table"]).split(",")
                               if a.strip()),
                         by or getpass.getuser())]


def _fail(status: int, message: str) -> NoReturn:
    print(f"paiju admin: {message}", file=sys.stderr)
    raise typer.Exit(status)


def _out(value: Any) -> None:
    print(json.dumps(value, ensure_ascii=False, sort_keys=True))


def _dict(message: Message) -> dict[str, Any]:
    return MessageToDict(message, preserving_proto_field_name=True,
                         always_print_fields_with_no_presence=True)


@contextmanager
def _channel(addr: str, peer: str) -> Iterator[grpc.Channel]:
    t = _target[0]
    try:
        me = identity.load(t.tls_dir, "operator")
    except identity.IdentityError as e:
        _fail(2, f"{e} (make it with `paiju certs`, or copy the operator's certificate: "
                 "docs/operations.md)")
    with identity.blocking_channel(addr, me, peer) as channel:
        yield channel


def _call(rpc: Callable[..., T], request: Message, missing: Sequence[str] = ()) -> T | None:
    """``rpc(request)`` as the operator; a refusal exits with status 1, except
    a NOT_FOUND whose reason is in ``missing`` (then None)."""
    try:
        reply: T = rpc(request, timeout=TIMEOUT, metadata=((HEADER, _target[0].by),))
        return reply
    except grpc.RpcError as e:
        details = str(e.details() or "")
        if e.code() == grpc.StatusCode.NOT_FOUND and details.split(":")[0] in missing:
            return None
        _fail(1, f"{e.code().name.lower()}: {details}")


def _seat(lobby: lobby_pb2_grpc.LobbyServiceStub, player: str) -> dict[str, Any] | None:
    room = _call(lobby.WhereIs, lobby_pb2.PlayerRequest(player=player), ["not_seated"])
    if room is None:
        return None
    seat = next((s.seat for s in room.seats if s.player == player), None)
    return {"room": room.room, "seat": seat, "state": room.state, "game_id": room.game_id,
            "table_instance": room.table_instance}


@app.command()
def find(query: Annotated[str, typer.Argument(help="a player id (or its start) or a name")],
         limit: Annotated[int, typer.Option(help="at most this many (1-100)")] = 20) -> None:
    """Players whose id starts with QUERY or whose name contains it, and where they sit."""
    t = _target[0]
    with _channel(t.ledger, "ledger") as lc, _channel(t.lobby, "lobby") as bc:
        found = _call(ledger_pb2_grpc.LedgerServiceStub(lc).FindAccounts,
                      ledger_pb2.FindAccountsRequest(query=query, limit=limit))
        lobby = lobby_pb2_grpc.LobbyServiceStub(bc)
        assert found is not None
        _out({"players": [{**_dict(a), "seat": _seat(lobby, a.player)}
                          for a in found.accounts]})


@app.command()
def show(player: Annotated[str, typer.Argument(help="the player's id")],
         limit: Annotated[int, typer.Option(help="journal entries (1-500)")] = 20) -> None:
    """A player's balance, recent journal entries, seat and last result."""
    t = _target[0]
    with _channel(t.ledger, "ledger") as lc, _channel(t.lobby, "lobby") as bc:
        ledger = ledger_pb2_grpc.LedgerServiceStub(lc)
        lobby = lobby_pb2_grpc.LobbyServiceStub(bc)
        account = _call(ledger.GetBalance, ledger_pb2.GetBalanceRequest(player=player))
        history = _call(ledger.GetHistory, ledger_pb2.GetHistoryRequest(player=player,
                                                                        limit=limit))
        last = _call(lobby.LastResult, lobby_pb2.PlayerRequest(player=player), ["no_result"])
        assert account is not None and history is not None
        _out({"account": _dict(account), "journal": [_dict(e) for e in history.entries],
              "seat": _seat(lobby, player), "last_result": _dict(last) if last else None})


@app.command()
def adjust(player: Annotated[str, typer.Argument(help="the player's id")],
           coins: Annotated[int, typer.Option(help="coins to give (> 0) or take (< 0)")],
           reason: Annotated[str, typer.Option(help="why (mandatory; kept in the journal)")],
           adjustment_id: Annotated[str | None, typer.Option(
               "--id", help="idempotency key (default: a new one); the same key again "
                            "changes nothing")] = None) -> None:
    """Give or take coins, with a reason: a journal entry against house:adjustments."""
    t = _target[0]
    with _channel(t.ledger, "ledger") as lc:
        reply = _call(ledger_pb2_grpc.LedgerServiceStub(lc).Adjust, ledger_pb2.AdjustRequest(
            player=player, coins=coins, reason=reason,
            adjustment_id=adjustment_id or f"admin:{uuid.uuid4()}"))
        assert reply is not None
        _out({"account": _dict(reply.account), "repeated": reply.repeated, "by": t.by})


@app.command("fund-ai")
def fund_ai(
        count: Annotated[int, typer.Option(help="AI players PREFIX1 … PREFIXcount (paiju ai's "
                                                "names; --pool numbers on across games)")],
        coins: Annotated[int, typer.Option(help="the balance each is brought up to (> 0)")],
        prefix: Annotated[str, typer.Option(help="the AI players' name prefix")] = "机器人",
) -> None:
    """Bring each AI player's balance (机器人, signed in with AI tokens) up to
    COINS from the house: an adjustment (reason ``AI players' coins``,
    against house:adjustments) for each whose account is open and holds
    less; those not signed in yet have no account and are listed apart."""
    from paiju.tools.ai_worker import ai_player_id

    if count < 1 or coins < 1:
        _fail(2, "--count and --coins are at least 1")
    t = _target[0]
    funded, unopened = [], []
    with _channel(t.ledger, "ledger") as lc:
        ledger = ledger_pb2_grpc.LedgerServiceStub(lc)
        for name in (f"{prefix}{i}" for i in range(1, count + 1)):
            player = ai_player_id(name)
            account = _call(ledger.GetBalance, ledger_pb2.GetBalanceRequest(player=player),
                            ["unknown_player"])
            if account is None:
                unopened.append(name)
                continue
            if account.coins >= coins:
                continue
            _call(ledger.Adjust, ledger_pb2.AdjustRequest(
                player=player, coins=coins - account.coins, reason="AI players' coins",
                adjustment_id=f"fund-ai:{player}:{uuid.uuid4()}"))
            funded.append({"name": name, "player": player, "coins": coins - account.coins})
    _out({"funded": funded, "not_signed_in_yet": unopened, "by": t.by})


@app.command()
def kick(player: Annotated[str, typer.Argument(help="the player's id")],
         reason: Annotated[str, typer.Option(help="why (mandatory; logged)")]) -> None:
    """Out of its room: stood up from a waiting room, or out of a running game
    (its escape, settled as the rules say)."""
    t = _target[0]
    with _channel(t.lobby, "lobby") as bc:
        lobby = lobby_pb2_grpc.LobbyServiceStub(bc)
        seat = _seat(lobby, player)
        if seat is None:
            _fail(1, f"not_seated: {player} sits nowhere")
        if not seat["game_id"]:
            room = _call(lobby.Kick, lobby_pb2.KickRequest(player=player, reason=reason))
            assert room is not None
            _out({"kicked": player, "room": seat["room"], "escape": False})
            return
    owner = _owner(seat["room"]) or seat["table_instance"]
    with _channel(owner, "table") as tc:
        _call(table_pb2_grpc.TableServiceStub(tc).Kick,
              table_pb2.KickRequest(room=seat["room"], player=player, reason=reason))
    _out({"kicked": player, "room": seat["room"], "escape": True, "table_instance": owner})


def _list_games() -> list[dict[str, Any]]:
    out = []
    for addr in _target[0].tables:
        with _channel(addr, "table") as tc:
            try:
                reply = table_pb2_grpc.TableServiceStub(tc).ListGames(
                    table_pb2.ListGamesRequest(), timeout=TIMEOUT,
                    metadata=((HEADER, _target[0].by),))
            except grpc.RpcError as e:
                out.append({"address": addr, "error": e.code().name.lower()})
                continue
        out.append({"address": addr, **_dict(reply)})
    return out


def _owner(room: str) -> str | None:
    """The address of the table instance that lists ``room``'s game now."""
    for instance in _list_games():
        if any(g["room"] == room for g in instance.get("games", [])):
            return str(instance["address"])
    return None


@app.command()
def games() -> None:
    """The live games of every table instance (unreachable ones say so)."""
    _out({"instances": _list_games()})


@app.command("end-game")
def end_game(room: Annotated[str, typer.Argument(help="the room whose game to end")],
             reason: Annotated[str, typer.Option(help="why (mandatory; in the game's record)")],
             ) -> None:
    """Void the room's game at the table instance that runs it: no settlement,
    its record's reason "void" with who and why; the room waits again."""
    owner = _owner(room)
    if owner is None:
        _fail(1, f"no_game: no table instance runs a game in {room} (a game the lobby "
                 "still thinks started is voided by its reconciliation)")
    with _channel(owner, "table") as tc:
        reply = _call(table_pb2_grpc.TableServiceStub(tc).EndGame,
                      table_pb2.EndGameRequest(room=room, reason=reason))
    assert reply is not None
    _out({**_dict(reply), "table_instance": owner, "by": _target[0].by})


@app.command()
def audit() -> None:
    """The ledger's audit: every balance recomputed, the journal's zero sum."""
    t = _target[0]
    with _channel(t.ledger, "ledger") as lc:
        reply = _call(ledger_pb2_grpc.LedgerServiceStub(lc).Audit, ledger_pb2.AuditRequest())
    assert reply is not None
    _out(_dict(reply))
    if not reply.ok:
        raise typer.Exit(1)
