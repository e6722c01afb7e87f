"""Relief coins (救济金) through the real lobby and ledger
(tests/lobby/conftest.py, default terms: 2000 coins, 3 a relief day): the
threshold is the lowest ``min_coins`` of the game's servers, so a player
who can sit at any of them gets nothing; an unknown game and relief turned
off are refused before the ledger is asked."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from paiju.lobby.v1 import lobby_pb2
from services.lobby.domain.coin_servers import parse
from services.lobby.domain.relief import NO_RELIEF, ReliefTerms, threshold
from tests.lobby.conftest import Stack
from tests.lobby.helpers import refused
from tests.lobby.test_quick_start import ROOMS_YAML


@pytest.fixture
def rooms_file(tmp_path: Path) -> Path:
    path = tmp_path / "rooms.yaml"
    path.write_text(ROOMS_YAML, encoding="utf-8")
    return path


def test_the_threshold_is_the_lowest_minimum_of_the_game() -> None:
    config = parse(ROOMS_YAML)
    assert (threshold(config, "doudizhu"), threshold(config, "hunzhan"),
            threshold(config, "daa")) == (100, 100, None)


def claim(player: str, game: str, claim_id: str) -> lobby_pb2.ClaimReliefRequest:
    return lobby_pb2.ClaimReliefRequest(player=player, game=game, claim_id=claim_id)


async def test_relief_for_a_game_the_player_cannot_afford(stack: Stack) -> None:
    await stack.bank.fund("mid", 150)
    await stack.bank.fund("broke", 50)
    listed = await stack.stub.ListServers(lobby_pb2.ListServersRequest())
    assert (listed.relief.coins, listed.relief.per_day, listed.relief.day_starts_utc_hour) == (
        2000, 3, 16)
    # 150 coins reach doudizhu's low server (100; high asks 5000): no relief
    assert await refused(stack.stub.ClaimRelief(claim("mid", "doudizhu", "a"))) == (
        grpc.StatusCode.FAILED_PRECONDITION, "not_eligible")
    granted = await stack.stub.ClaimRelief(claim("broke", "doudizhu", "a"))
    assert (granted.coins, granted.granted, granted.claims_left, granted.repeated) == (
        2050, 2000, 2, False)
    again = await stack.stub.ClaimRelief(claim("broke", "doudizhu", "a"))
    assert (again.coins, again.repeated) == (2050, True)
    assert await stack.bank.balance("broke") == 2050
    # now 2050 reaches a server: no more relief
    assert await refused(stack.stub.ClaimRelief(claim("broke", "hunzhan", "b"))) == (
        grpc.StatusCode.FAILED_PRECONDITION, "not_eligible")
    assert await refused(stack.stub.ClaimRelief(claim("mid", "daa", "b"))) == (
        grpc.StatusCode.NOT_FOUND, "no_such_game_type")
    assert await refused(stack.stub.ClaimRelief(claim("mid", "doudizhu", "no way"))) == (
        grpc.StatusCode.INVALID_ARGUMENT, "bad_claim_id")
    assert await refused(stack.stub.ClaimRelief(claim("", "doudizhu", "c"))) == (
        grpc.StatusCode.INVALID_ARGUMENT, "invalid_argument")
    stack.lobby.relief = NO_RELIEF
    try:
        assert await refused(stack.stub.ClaimRelief(claim("mid", "doudizhu", "d"))) == (
            grpc.StatusCode.FAILED_PRECONDITION, "relief_off")
        listed = await stack.stub.ListServers(lobby_pb2.ListServersRequest())
        assert listed.relief.coins == 0
    finally:
        stack.lobby.relief = ReliefTerms(2000, 3, 16)
    assert await stack.bank.balance("mid") == 150
