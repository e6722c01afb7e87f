"""What a command handler may use of its connection and of the gateway.

The handlers (:mod:`services.gateway.application.commands`), sign-in
(:mod:`services.gateway.application.signin`) and the dispatch take a
:class:`Connection`, not the concrete
:class:`~services.gateway.application.session.Session`; the session takes
the gateway as :class:`Ports`, not the concrete
:class:`~services.gateway.entrypoints.gateway.Gateway`. So the imports go one
way: entrypoint → session → dispatch → commands → these protocols.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Protocol

from nats.aio.client import Client as NATS

from paiju.config import Config
from paiju.ledger.v1 import ledger_pb2
from paiju.lobby.v1 import lobby_pb2
from paiju.presence.publisher import PresencePublisher
from paiju.runtime.table_instances import TableInstances
from paiju.table.v1 import table_pb2
from services.gateway.adapters import auth
from services.gateway.adapters.backends import Backends
from services.gateway.adapters.fanout import Fanout
from services.gateway.application.routing import Router
from services.gateway.application.subscriptions import OnEvent, Subscriptions
from services.gateway.domain.admission import Admission
from services.gateway.domain.limits import PlayerBuckets, QueueBudget, SessionRate
from services.gateway.domain.protocol import TokenBucket


class Ports(Protocol):
    """What every connection of one gateway shares (the gateway's state)."""

    config: Config
    nats: NATS
    backends: Backends
    #: Publishes the signed-in sessions (paiju.presence).
    presence: PresencePublisher
    fanout: Fanout
    verifier: auth.Verifier
    session_rate: SessionRate
    queue_budget: QueueBudget
    chat_rate: PlayerBuckets
    table_instances: TableInstances
    admission: Admission

    @property
    def ping(self) -> tuple[float, float]:
        """WebSocket ping interval and pong timeout, seconds."""
        ...

    def spectator_count(self, room: str, session: str | None = None) -> int:
        """How many watch ``room`` on every gateway (``session`` counted)."""
        ...

    async def ai_account(self, player: str, name: str) -> ledger_pb2.Account:
        """An AI token's player: its account, opened (granted in development mode)."""
        ...

    async def dev_account(self, player: str, name: str, ai: bool = False
                          ) -> tuple[str, ledger_pb2.Account]:
        """Development login: the player's token and account (``ai``: an AI
        player's token)."""
        ...


class Connection(Protocol):
    """One client connection, as its commands see it."""

    id: str
    gw: Ports
    bucket: TokenBucket
    identity: auth.Identity | None
    #: True once this connection's presence ``connect`` was published.
    announced: bool
    #: The room this connection watches (旁观), or None.
    watching: str | None
    #: Replays opened on this connection: game id → viewer, record, steps.
    replays: OrderedDict[str, dict[str, Any]]
    subs: Subscriptions
    route: Router

    @property
    def player(self) -> str:
        """The signed-in player's id (after sign-in only)."""
        ...

    def send(self, obj: dict[str, Any]) -> None:
        """Queue ``obj`` for the client."""
        ...

    def identify(self, identity: auth.Identity) -> None:
        """Make ``identity`` this connection's player."""
        ...

    def forget_identity(self) -> None:
        """The connection is signed out."""
        ...

    async def close_replaced(self) -> None:
        """A newer connection of the player signed in: close this one."""
        ...

    async def sign_in(self, identity: auth.Identity,
                      account: ledger_pb2.Account | None = None) -> dict[str, Any]:
        """Sign in as ``identity``; the ``welcome`` fields."""
        ...

    async def subscribe(self, key: str, subject: str, on_event: OnEvent | None = None
                        ) -> None:
        """Forward every event of ``subject`` to the client under ``key``."""
        ...

    async def seated(self, room: lobby_pb2.Room) -> None:
        """The player sits in ``room``: follow its table."""
        ...

    async def stood_up(self) -> None:
        """The player sits nowhere now."""
        ...

    async def left_game(self) -> None:
        """The player left its running game (退出)."""
        ...

    async def table_call(self, method: str, make: Callable[[str], Any]) -> Any:
        """Call ``method`` of the table hosting the player's game."""
        ...

    async def stop_watching(self) -> bool:
        """End this connection's watch, if any; True if it watched."""
        ...

    def player_request(self, room: str) -> table_pb2.PlayerRequest:
        """The table's PlayerRequest of this player in ``room``."""
        ...

    def view_request(self, room: str) -> table_pb2.ViewRequest:
        """The table's ViewRequest of this player in ``room``."""
        ...
