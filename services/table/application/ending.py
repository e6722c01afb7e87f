"""The end of a game: settlement, record, ``game_finished``, then a redeal or
the lobby's ``GameOver`` (docs/table.md "Behaviour").

A game an operator voided (reason ``void``, ``paiju admin end-game``) is not
settled: its record (reason ``void``, who and why), the lobby's GameOver with
no settlement and the room's carry-over as the voided game had it, then
``game_finished`` with reason ``void`` and no result.

A finished game (not a redeal) is settled by the ledger (``Settle``,
idempotent by game id); its record is stored; the lobby hears ``GameOver``
(the escapees, the carry-over for the room's next game, the settlement table)
and only then ``game_finished`` goes out with the ledger's rows, so that a
player who acts on ``game_finished`` (``stand``, ``ready``) finds the room free.
A practice server's game (练习场, the table option ``practice``) moves no
coins: it is not settled by the ledger; its settlement table has each seat's
points with 0 coins and 0 fee, and no no-call fee is charged.
A redeal (nobody bid or declared: the engine's result kind ``redeal``)
publishes ``game_finished`` (reason ``redeal``) and is dealt again in the same
room; where the engine has a ``redeal_fee_after`` (rulings.md: two no-call
deals in a row), that many redeals in a row make every seated player pay
``no_call_fee`` (ledger ChargeFee, charge id ``<that deal's
game_id>:no_call_fee``) and the streak starts from zero again.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from paiju.common.v1 import common_pb2
from paiju.ledger.v1 import ledger_pb2
from paiju.lobby.v1 import lobby_pb2
from services.table import metrics
from services.table.adapters.remote import Ledger, Refused, settlement_rows
from services.table.application.room import RoomRunner
from services.table.domain.entries import Finished
from services.table.domain.outgoing import ms
from services.table.domain.sitting import Sitting
from services.table.domain.spec import Terms

log = logging.getLogger("paiju.table")


def played_ms(game: Sitting) -> int:
    """How long ``game`` was played, ms: its record's finished_at − started_at
    (0 where it has not finished)."""
    if game.finished_at is None:
        return 0
    return max(0, ms(game.finished_at) - ms(game.started_at))


async def settle(ledger: Ledger, game: Sitting, terms: Terms
                 ) -> tuple[list[dict[str, Any]], str]:
    """Ledger ``Settle`` of a finished game: ``(rows, error)``, the 结算表
    (events.md) and "" where the ledger settled it, ``([], reason)`` where it
    refused."""
    result = game.engine.result()
    req = ledger_pb2.SettleRequest(
        game_id=game.game_id, game=game.name, reason=game.reason or "normal",
        server=game.server, room=game.room, played_ms=played_ms(game),
        terms=common_pb2.SettlementTerms(base=terms.base, unit=terms.unit,
                                         fee_rate=terms.fee_rate),
        seats=[ledger_pb2.SettleSeat(seat=s.seat, player=s.player,
                                     points=int(result.points[s.seat]))
               for s in game.seats])
    try:
        reply = await ledger.settle(req)
    except Refused as e:
        log.error("ledger refused settling %s: %s", game.game_id, e)
        return [], e.details or e.code.name
    return settlement_rows(list(reply.rows)), ""


def practice_rows(game: Sitting) -> list[dict[str, Any]]:
    """The 结算表 of a practice game (no ledger): ``[{player, seat, points,
    coins: 0, fee: 0}]`` in seat order, the points the engine's result gives."""
    result = game.engine.result()
    return [{"player": s.player, "seat": s.seat, "points": int(result.points[s.seat]),
             "coins": 0, "fee": 0} for s in game.seats]


async def charge_no_call_fee(ledger: Ledger, game: Sitting, fee: int) -> None:
    """Every seated player of ``game`` pays ``fee`` coins (ChargeFee, charge id
    ``<game_id>:no_call_fee``); a refusal is logged."""
    if fee <= 0:
        return
    try:
        await ledger.charge_fee(ledger_pb2.ChargeFeeRequest(
            charge_id=f"{game.game_id}:no_call_fee",
            players=[s.player for s in game.seats], coins=fee, reason="no_call_fee"))
    except Refused as e:
        log.error("ledger refused the no-call fee of %s: %s", game.game_id, e)


def carry(game: Sitting, no_call_streak: int) -> dict[str, Any]:
    """What the room's next game needs (lobby GameOver carry_json): the
    engine's :meth:`~paiju.rules.engine.Game.carry_over` (options of the next
    game, e.g. the next dealer or the seat dealt to first); a finished game
    starts the room's redeal streak anew. A voided game passes on what it was
    started with: the engine's ``carried_options``, the seat dealt to first
    and the redeal streak (``no_call_streak``)."""
    if game.voided is None:
        return game.engine.carry_over()
    kept = {k: game.engine_options[k] for k in game.engine.policy.carried_options
            if game.engine_options.get(k) is not None}
    if game.topts.first is not None:
        kept["first"] = game.topts.first
    if game.engine.policy.redeal_fee_after:
        kept["no_call_streak"] = no_call_streak
    return kept


def game_over_request(runner: RoomRunner, game: Sitting, rows: list[dict[str, Any]],
                      no_call_streak: int = 0) -> lobby_pb2.GameOverRequest:
    """The lobby's GameOver for ``game``: the room's game id (the first deal's),
    the escapees, the carry-over, and the room's last result: the settlement
    table, the settlement screen's lines and ``record_id``, the game id of the
    deal played out (its record's)."""
    escaped = [] if game.engine.escaped is None else [game.player_of(game.engine.escaped)]
    return lobby_pb2.GameOverRequest(
        game_id=runner.sitting.spec.game_id, room=runner.sitting.spec.room, escaped=escaped,
        carry_json=json.dumps(carry(game, no_call_streak)),
        settlement=[common_pb2.SettlementRow(
            player=str(r["player"]), seat=int(r["seat"]), points=int(r["points"]),
            coins=int(r["coins"]), fee=int(r["fee"])) for r in rows],
        record_id=game.game_id, lines=result_lines(game))


def result_lines(game: Sitting) -> list[lobby_pb2.ResultLine]:
    """The settlement screen's lines of ``game`` (as ``game_finished.lines``;
    none when voided) for the lobby's last result."""
    if game.voided:
        return []
    return [lobby_pb2.ResultLine(label=str(x["label"]), value=str(x.get("value", "")),
                                 seats=[int(s) for s in x.get("seats", ())])
            for x in game.engine.result_lines()]


async def finish(runner: RoomRunner, game: Sitting) -> None:
    """Settle, store, publish ``game_finished`` (its ``finished`` entry in the
    log), then redeal or tell the lobby (and retire the sitting). After a
    takeover the steps already logged are not done again; the others are
    idempotent (Settle, the record, GameOver, ChargeFee)."""
    table = runner.table
    reason = game.reason or "normal"
    if not runner.sitting.finished_logged:
        metrics.GAMES_FINISHED.labels(game.name, reason).inc()
        if reason == "escape":
            metrics.ESCAPES.labels(game.name).inc()
        rows: list[dict[str, Any]] = []
        settlement_error = ""
        practice = runner.sitting.spec.table_options.practice
        if reason not in ("redeal", "void") and practice:
            rows = practice_rows(game)
        elif reason not in ("redeal", "void"):
            rows, settlement_error = await settle(table.ledger, game, runner.sitting.spec.terms)
        record = game.record()
        if rows:
            record["settlement"] = rows
        await table.store_record(record)
        if reason != "redeal":
            runner.over = True
            if table.lobby is not None:
                # A finished doudizhu game starts the room's no-call streak anew
                # (a voided one keeps it).
                streak = runner.sitting.no_call_streak if reason == "void" else 0
                req = game_over_request(runner, game, rows, streak)
                try:
                    await table.lobby.game_over(req)
                except Refused as e:
                    log.error("lobby refused GameOver %s: %s", runner.sitting.spec.game_id, e)
        await publish_finished(runner, game, rows, settlement_error)
    if reason == "redeal":
        if runner.sitting.fee_due and not runner.sitting.spec.table_options.practice:
            fee = runner.sitting.spec.table_options.no_call_fee
            await charge_no_call_fee(table.ledger, game, fee)
        await runner.redeal()
        return
    runner.over = True
    await runner.retire()


async def publish_finished(runner: RoomRunner, game: Sitting, rows: list[dict[str, Any]],
                           settlement_error: str) -> None:
    """Log and publish ``game_finished`` (under the room's lock, after every
    event before it; waits out a pause of the log)."""
    await runner.when_live(lambda: Finished(
        ms(runner.table.clock.now()), game.game_id, rows, settlement_error))
