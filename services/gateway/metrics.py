"""The gateway's Prometheus metrics."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

from paiju.runtime.metrics import LATENCY_BUCKETS

CONNECTIONS = Gauge("paiju_gateway_connections", "Open client connections.")
PLAYERS = Gauge("paiju_gateway_players", "Signed-in client connections (players online).")
MESSAGES_IN = Counter("paiju_gateway_messages_in_total", "Frames received from clients.")
MESSAGES_OUT = Counter("paiju_gateway_messages_out_total", "Frames sent to clients.")
SLOW_CLIENT_DISCONNECTS = Counter(
    "paiju_gateway_slow_client_disconnects_total",
    "Connections cut off because the client did not read its events.")
COMMAND_SECONDS = Histogram(
    "paiju_gateway_command_duration_seconds", "Time from a command to its reply.",
    ["cmd"], buckets=LATENCY_BUCKETS)
ERRORS = Counter("paiju_gateway_errors_total", "Commands refused, by error code.", ["code"])
#: Commands the platform failed to answer (refused ``internal`` or
#: ``unavailable``), by command: the failures of the service level objectives
#: (docs/operations.md "Service level objectives"), whose commands start at 0.
COMMANDS_FAILED = Counter(
    "paiju_gateway_commands_failed_total",
    "Commands answered with a failure of the platform (internal, unavailable), by command.",
    ["cmd"])
PLATFORM_FAILURES = frozenset({"internal", "unavailable"})
for _cmd in ("act", "login", "auth"):
    # Present from the start, so that the commands before the first scrape
    # count in rate() (a reconnect storm after a rollout).
    COMMAND_SECONDS.labels(_cmd)
    COMMANDS_FAILED.labels(_cmd)
PING_TIMEOUTS = Counter(
    "paiju_gateway_ping_timeouts_total",
    "Connections aborted because a WebSocket ping got no pong in time.")
LIMIT_REFUSALS = Counter(
    "paiju_gateway_limit_refusals_total",
    "Connections, sign-ins and frames refused by a limit of the gateway (limit: connections, "
    "connections_per_address, sessions_per_player, queued_bytes, frame_size).", ["limit"])
QUEUED_BYTES = Gauge("paiju_gateway_queued_bytes",
                     "Bytes waiting in the send queues of all connections.")
SPECTATORS = Gauge("paiju_gateway_spectators",
                   "Connections of this gateway watching a room's game (旁观).")
WATCHES = Counter("paiju_gateway_watches_total", "Watches (旁观) started.")
QUICK_STARTS = Counter("paiju_gateway_quick_starts_total",
                       "Quick starts (快速开始) that seated the player.")
CHAT_MESSAGES = Counter("paiju_gateway_chat_messages_total",
                        "Quick chat messages sent, by kind (phrase, emote).", ["kind"])
for _kind in ("phrase", "emote"):
    CHAT_MESSAGES.labels(_kind)
REPLAYS_OPENED = Counter("paiju_gateway_replays_opened_total",
                         "Finished games opened in the replay viewer, by viewer "
                         "(player: one of its players; operator: by an operator's replay link; "
                         "shared: by a player's shared link).", ["viewer"])
REPLAYS_REFUSED = Counter("paiju_gateway_replays_refused_total",
                          "Replays refused to a player who did not play the game.")
REPLAY_SHARES = Counter("paiju_gateway_replay_shares_total",
                        "Players' shared replay links, by event (made, revoked, opened).",
                        ["event"])
for _event in ("made", "revoked", "opened"):
    REPLAY_SHARES.labels(_event)
HISTORY_PAGES = Counter("paiju_gateway_history_pages_total", "History (战绩) pages served.")
RANKINGS_VIEWED = Counter("paiju_gateway_rankings_viewed_total", "Rankings served.")
STATS_VIEWED = Counter("paiju_gateway_stats_viewed_total", "Players' stats served.")
CALLS_IN_FLIGHT = Gauge("paiju_gateway_calls_in_flight",
                        "Calls of this gateway to the services not yet answered "
                        "(sampled every 0.1 s).")
LOOP_LAG = Gauge("paiju_gateway_loop_lag_seconds",
                 "How late the gateway's event loop last ran a timer (sampled every 0.1 s).")
ACT_TIME = Gauge("paiju_gateway_act_median_seconds",
                 "The median answer time of the gateway's act commands over the last 2 s "
                 "(0 with fewer than 20; sampled every 0.1 s).")
SHED = Counter("paiju_gateway_shed_total",
               "Commands refused with busy past the gateway's headroom, by reason "
               "(calls_in_flight, loop_lag, act_time).", ["reason"])
#: Numbered events kept from a client or repaired before it (kind: ``gap``
#: repaired with a view first, ``repeat`` dropped, ``reconnect``: a view sent
#: after the gateway's NATS connection came back),
#: services.gateway.application.sequencing.
SEQ_REPAIRS = Counter("paiju_gateway_seq_repairs_total",
                      "Table event seq gaps repaired with a view, repeats dropped, and views "
                      "sent after a NATS reconnect, before a client saw them (kind: gap, "
                      "repeat, reconnect).", ["kind"])
for _kind in ("gap", "repeat", "reconnect"):
    SEQ_REPAIRS.labels(_kind)
