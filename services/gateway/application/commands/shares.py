"""A player's shared replay links (docs/client-protocol.md "Shared
replays"): ``share_replay``, ``shares``, ``revoke_share``,; a shared link's
``replay`` checks its share (records.check_share).

Shares live in the table service's record store (CreateShare, ListShares,
RevokeShare, GetShare on any table instance: they share it). A link is a
replay link (services.gateway.adapters.replay_links.issue_share) naming its
share; it opens until its owner revokes the share.
"""

from __future__ import annotations

import re
from typing import Any

from paiju.table.v1 import table_pb2
from services.gateway import metrics
from services.gateway.adapters import replay_links
from services.gateway.adapters.backends import CALL_TIMEOUT
from services.gateway.application.commands.records import MAX_GAME_ID, fetch_record, on_table
from services.gateway.application.connection import Connection
from services.gateway.domain.protocol import ClientError, field, shown

#: A share id as the table service makes it (url-safe base64).
SHARE_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")


def _link(s: Connection, share: table_pb2.Share) -> dict[str, Any]:
    cfg = s.gw.config
    token = replay_links.issue_share(cfg.token_secret, share.game_id, share.share,
                                     share.player, cfg.dev_mode)
    return {"share": share.share, "game_id": share.game_id, "created_ms": share.created_ms,
            "link": f"#replay={share.game_id}&link={token}"}


async def share_replay(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """``share_replay`` {game_id}: a shared replay link of a finished game I
    played: ``{share, game_id, created_ms, link}`` (``link`` the web client's
    ``#replay=<game_id>&link=<token>``). Refusals: ``no_record``,
    ``not_your_game``, ``too_many_shares``."""
    game_id = field(args, "game_id", str)
    if not 0 < len(game_id) <= MAX_GAME_ID:
        raise ClientError("no_record", "no such game id")
    record = await fetch_record(s, game_id)
    if s.player not in [p.get("player") for p in record.get("players", [])]:
        raise ClientError("not_your_game", "only the game's own players share its replay")
    limit = s.gw.config.gateway_max_replay_shares
    share = await on_table(s, lambda t: t.CreateShare(table_pb2.CreateShareRequest(
        game_id=game_id, player=s.player, max_active=limit), timeout=CALL_TIMEOUT))
    metrics.REPLAY_SHARES.labels("made").inc()
    return _link(s, share)


async def shares(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """``shares``: my active shared replay links, newest first:
    ``{shares: [{share, game_id, created_ms, link}]}``."""
    resp = await on_table(s, lambda t: t.ListShares(
        table_pb2.ListSharesRequest(player=s.player), timeout=CALL_TIMEOUT))
    return {"shares": [_link(s, sh) for sh in resp.shares]}


async def revoke_share(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """``revoke_share`` {share}: its link opens no more, at once on every
    gateway: ``{share, revoked_ms}``. Refusals: ``no_share``,
    ``not_your_share``."""
    share = field(args, "share", str)
    if not SHARE_ID.fullmatch(share):
        raise ClientError("no_share", f"no share {shown(share)}")
    resp = await on_table(s, lambda t: t.RevokeShare(table_pb2.RevokeShareRequest(
        share=share, player=s.player), timeout=CALL_TIMEOUT))
    metrics.REPLAY_SHARES.labels("revoked").inc()
    return {"share": resp.share, "revoked_ms": resp.revoked_ms}
