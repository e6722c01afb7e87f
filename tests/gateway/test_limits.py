"""Unit tests of the gateway's pure bookkeeping: the limits of
services.gateway.domain.limits, and token checks of services.gateway.adapters.auth with an
injected clock (the real processes are in test_edge.py and test_tokens.py)."""

from __future__ import annotations

import base64

import jwt
import pytest

from services.gateway.adapters import auth
from services.gateway.domain.limits import Connections, QueueBudget, SessionRate

KEY = "k" * 32
NOW = 1_800_000_000.0


class Clock:
    def __init__(self, t: float = 0.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def test_connections_in_total_and_per_address() -> None:
    c = Connections(total=3, per_address=2)
    assert c.admit("a") is None and c.admit("a") is None
    assert c.admit("a") == "too many connections from your address"
    assert c.admit("b") is None
    assert c.admit("c") == "the gateway is full; try again later"
    c.release("a")
    assert c.admit("c") is None
    assert (c.open, c.by_address) == (3, {"a": 1, "b": 1, "c": 1})


def test_sign_ins_per_player_in_a_sliding_minute() -> None:
    clock = Clock()
    rate = SessionRate(3, clock)
    for t in (0.0, 10.0, 20.0):
        clock.t = t
        assert rate.allow("alice")
    clock.t = 59.9
    assert not rate.allow("alice")  # three in the last minute
    assert rate.allow("bob")
    clock.t = 60.0  # the sign-in at 0 s is a minute old
    assert rate.allow("alice")
    assert not rate.allow("alice")


class FakeQueue:
    def __init__(self, budget: QueueBudget, name: str, held: int) -> None:
        self.name, self.queued_bytes, self.budget = name, held, budget
        self.cut = False
        budget.queues.add(self)
        budget.add(held)

    def cut_off(self, why: str) -> None:
        self.cut = True
        self.budget.queues.discard(self)
        self.budget.remove(self.queued_bytes)
        self.queued_bytes = 0


def test_the_queue_holding_the_most_is_cut_off_first() -> None:
    budget = QueueBudget(1000)
    slow, fast = FakeQueue(budget, "slow", 700), FakeQueue(budget, "fast", 100)
    assert budget.make_room(150, fast)  # 950: within
    assert not slow.cut
    assert budget.make_room(300, fast)  # 1100 would pass: the slow one goes
    assert slow.cut and not fast.cut and budget.used == 100
    assert not budget.make_room(2000, fast)  # more than the whole budget: itself
    assert fast.cut and budget.used == 0


def verifier(clock: float = NOW, max_lifetime: int = 3600) -> auth.Verifier:
    return auth.Verifier(KEY, max_lifetime, clock=lambda: clock)


def token(**claims: object) -> str:
    return jwt.encode({"sub": "alice", **claims}, KEY, algorithm="HS256")


def test_the_lifetime_is_bounded_by_exp_minus_iat_and_exp_minus_now() -> None:
    # PyJWT checks exp against the real clock: the tokens expire in the future.
    import time

    now = time.time()
    v = verifier(clock=now)
    assert v.verify(token(iat=int(now), exp=int(now) + 3600)).player == "alice"
    for claims in ({"iat": int(now)}, {"exp": int(now) + 3600 + 61},
                   {"iat": int(now) - 3600, "exp": int(now) + 1}):
        with pytest.raises(auth.BadToken):
            v.verify(token(**claims))
    # exp - now within the maximum and a little clock difference: accepted.
    assert v.verify(token(exp=int(now) + 3600 + 30)).player == "alice"


def test_other_algorithms_and_names_are_refused_or_replaced() -> None:
    import time

    exp = int(time.time()) + 600
    v = verifier(clock=time.time())
    none_alg = jwt.encode({"sub": "alice", "exp": exp}, "", algorithm="none")
    with pytest.raises(auth.BadToken, match="none"):
        v.verify(none_alg)
    hs = token(exp=exp).split(".")
    rs_header = base64.urlsafe_b64encode(b'{"alg":"RS256","typ":"JWT"}').rstrip(b"=").decode()
    with pytest.raises(auth.BadToken, match="RS256"):  # no identity provider configured
        v.verify(".".join([rs_header, hs[1], hs[2]]))
    odd = v.verify(token(exp=exp, name="x" * 30))
    assert odd.name == "alice"  # a name past 24 characters: the player id stands in
    assert not odd.provider


def test_an_ai_players_token_marks_it_and_only_a_true_claim_does() -> None:
    import time

    v = verifier(clock=time.time())
    assert v.verify(auth.issue(KEY, "bot", "机器人1", 600, ai=True)).ai is True
    assert v.verify(auth.issue(KEY, "alice", "alice", 600)).ai is False
    assert v.verify(token(exp=int(time.time()) + 600, ai="yes")).ai is False


AI_KEY = "a" * 32


def test_an_ai_key_signs_in_ai_players_only_under_ai_ids() -> None:
    """PAIJU_AI_TOKEN_SECRET's tokens are AI players' (marked, their accounts
    opened at sign-in) and may name only ``ai-`` ids; outside development mode a token
    of the players' key cannot say it is an AI's."""
    import time

    from paiju.tools.ai_worker import ai_player_id, ai_token

    now = time.time()
    v = auth.Verifier(KEY, 7200, clock=lambda: now, ai_secret=AI_KEY, ai_claims=False)
    bot = v.verify(ai_token(AI_KEY, "机器人1", now))
    assert (bot.player, bot.name, bot.ai, bot.ai_token) == (
        ai_player_id("机器人1"), "机器人1", True, True)
    assert bot.player.startswith("ai-") and len(bot.player) == 27
    person = jwt.encode({"sub": "alice", "exp": int(now) + 600}, AI_KEY, algorithm="HS256")
    with pytest.raises(auth.BadToken, match="ai-"):
        v.verify(person)
    # The players' key: an ai claim is not believed outside development mode.
    claimed = v.verify(auth.issue(KEY, "ai-x", "机器人2", 600, ai=True))
    assert (claimed.ai, claimed.ai_token) == (False, False)
    # Another key, or no AI key at all: refused.
    with pytest.raises(auth.BadToken):
        v.verify(ai_token("b" * 32, "机器人1", now))
    with pytest.raises(auth.BadToken):
        auth.Verifier(KEY, 7200, clock=lambda: now).verify(ai_token(AI_KEY, "机器人1", now))
