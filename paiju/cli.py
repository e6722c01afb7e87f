"""The ``paiju`` command: the platform, each service alone, replay and bots.

``paiju up`` runs the whole platform on one machine; ``paiju lobby`` /
``table`` / ``ledger`` / ``gateway`` run one service as a container would;
``paiju replay FILE|-`` checks a game record (shared/spec/records.md);
``paiju bots`` plays games through a gateway; ``paiju ai`` sits AI players
(:mod:`paiju.tools.ai_worker`); ``paiju certs`` issues the
services' certificates (paiju.security.identity); ``paiju nats-config DIR`` makes the
services' NATS credentials (:mod:`paiju.security.natsauth`); ``paiju admin`` is the
operator's console (:mod:`paiju.tools.admin`).
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(help="paiju (牌局): an online platform for Chinese card games.",
                  no_args_is_help=True, add_completion=False)


def _service(name: str) -> None:
    module = importlib.import_module(f"services.{name}.main")
    module.main()


@app.command()
def lobby() -> None:
    """Run the lobby service (coin servers, rooms, seats, ready)."""
    _service("lobby")


@app.command()
def table() -> None:
    """Run one table-service instance (hosts running games)."""
    _service("table")


@app.command()
def ledger() -> None:
    """Run the ledger service (accounts, settlements, fees)."""
    _service("ledger")


@app.command()
def gateway() -> None:
    """Run the gateway (WebSocket clients, the web client's files)."""
    _service("gateway")


@app.command()
def up(
    tables: Annotated[int, typer.Option(help="table service instances (1-9)")] = 1,
    gateways: Annotated[int, typer.Option(help="gateway instances (1-9)")] = 1,
    prometheus: Annotated[bool, typer.Option(
        help="also run Prometheus (where `prometheus` is on the PATH) scraping the "
        "services, with paiju's alerting and recording rules")] = False,
    nats_cluster: Annotated[int, typer.Option(
        help="NATS as a cluster of this many nodes (2-5; the game log at 3 replicas), "
        "in production's shape")] = 1,
) -> None:
    """Run the whole platform: NATS, the four services, SQLite; a service that
    dies is restarted; Ctrl-C stops all."""
    from paiju.tools.up import main as up_main

    up_main({"table": tables, "gateway": gateways}, prometheus=prometheus,
            nats_nodes=nats_cluster)


@app.command("nats-config")
def nats_config(
    folder: Annotated[Path, typer.Argument(help="where the seeds and auth.conf go")],
    gateways: Annotated[int, typer.Option(
        min=1, help="gateway replicas, each its own user: gateway-0 … gateway-<N-1> "
        "(the pods of the gateway StatefulSet; at least its autoscaler's maxReplicas)")
    ] = 10,
    rotate: Annotated[list[str] | None, typer.Option(
        help="make a new seed for this user (repeatable); other seeds are kept")] = None,
) -> None:
    """Make each NATS user's NKey seed (FOLDER/<user>.nk, kept if there: lobby,
    table, ledger and each gateway replica) and the NATS server's
    authorization block (FOLDER/auth.conf)."""
    from paiju.security.natsauth import AUTH_CONF, gateway_users, write_credentials

    try:
        keys = write_credentials(folder, gateways=gateway_users(gateways), rotate=rotate or ())
    except (OSError, ValueError) as e:
        print(f"paiju nats-config: {e}", file=sys.stderr)
        raise typer.Exit(2) from e
    for user, key in keys.items():
        print(f"{user:9} {key}  {folder / (user + '.nk')}")
    print(f"server    {folder / AUTH_CONF}")


@app.command()
def certs(
    folder: Annotated[Path, typer.Argument(help="the PAIJU_TLS_DIR to fill")] = Path(".paiju/tls"),
    host: Annotated[list[str] | None, typer.Option(
        help="another DNS name or IP address for new certificates (repeatable)")] = None,
    reissue: Annotated[list[str] | None, typer.Option(
        help="issue this identity's certificate anew (repeatable)")] = None,
    new_ca: Annotated[bool, typer.Option(help="a new CA, and every certificate anew")] = False,
) -> None:
    """Make the CA and a certificate for every identity (lobby, table, ledger,
    gateway, operator) that is missing, foreign or within 30 days of its end."""
    from paiju.security import identity

    try:
        if new_ca:
            identity.make_ca(folder)
        for name in reissue or []:
            identity.issue(folder, name, host or [])
        made = identity.ensure(folder, hosts=host or [])
    except identity.IdentityError as e:
        print(f"paiju certs: {e}", file=sys.stderr)
        raise typer.Exit(2) from e
    made = (["ca"] if new_ca else []) + list(reissue or []) + made
    print(f"{folder}: {', '.join(dict.fromkeys(made)) or 'nothing to do'}")


@app.command()
def replay(
    file: Annotated[str, typer.Argument(help="a game record (JSON), or - for standard input")],
) -> None:
    """Apply a game record's actions and print the verdicts and result as JSON."""
    from paiju.tools.replay import RecordError, parse_record
    from paiju.tools.replay import replay as run_replay

    try:
        text = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
        out = run_replay(parse_record(text))
    except (OSError, RecordError) as e:
        print(f"paiju replay: {e}", file=sys.stderr)
        raise typer.Exit(2) from e
    print(json.dumps(out, ensure_ascii=False))


@app.command("replay-link")
def replay_link(
    game_id: Annotated[str, typer.Argument(help="the finished game's id (its record's)")],
    base: Annotated[str | None, typer.Option(
        help="the web client's address (default: the local paiju up's, "
             "PAIJU_UP_PORT_BASE and PAIJU_GATEWAY_PORT as it reads them)")] = None,
    ttl: Annotated[int, typer.Option(help="seconds the link is valid (at most a day)")] = 3600,
    viewer: Annotated[str, typer.Option(help="who asks for it (kept in the link)")
                      ] = "operator",
) -> None:
    """Print an operator's replay link of a finished game, signed with a key
    derived from PAIJU_TOKEN_SECRET (docs/operations.md "Replay links"). Beside
    ``paiju up`` (development mode, the development key unless
    PAIJU_TOKEN_SECRET is set) run it with PAIJU_DEV_MODE=1."""
    from urllib.parse import quote

    from paiju.config import load
    from paiju.tools.up import UpError, local_addresses
    from services.gateway.adapters.replay_links import issue

    try:
        cfg = load("gateway")
        web = base or local_addresses()["web"]
    except (ValueError, UpError) as e:
        print(f"paiju replay-link: {e}", file=sys.stderr)
        raise typer.Exit(2) from e
    try:
        token = issue(cfg.token_secret, game_id, viewer, ttl, cfg.dev_mode)
    except ValueError as e:
        hint = "" if cfg.dev_mode else (
            " (beside paiju up, which runs in development mode: set PAIJU_DEV_MODE=1)")
        print(f"paiju replay-link: {e}{hint}", file=sys.stderr)
        raise typer.Exit(2) from e
    print(f"{web.rstrip('/')}/#replay={quote(game_id)}&link={token}")


@app.command()
def bots(
    game: Annotated[str, typer.Option(
        help="a registered game (the paiju.games entry points, PAIJU_GAMES) or all")] = "all",
    games: Annotated[int | None, typer.Option(
        help="games to play at each table (default 1, or no limit with --duration)")] = None,
    duration: Annotated[float | None, typer.Option(
        help="seconds to play: each table stops after the game that ends past it")] = None,
    tables: Annotated[int, typer.Option(help="tables of each game played at once")] = 1,
    think: Annotated[str, typer.Option(help="seconds a bot thinks per move: MIN-MAX or 0")
                     ] = "0.2-0.6",
    gateway: Annotated[str, typer.Option(
        help="the gateway's WebSocket URL, or several comma separated (bots move on "
             "to the next when one dies)")
                       ] = "ws://127.0.0.1:8080/ws",
    seed: Annotated[int | None, typer.Option(help="seed of the bots' choices")] = None,
    progress: Annotated[bool, typer.Option(help="show a progress bar")] = True,
) -> None:
    """Play games through a gateway with bots; the last line is a JSON summary."""
    import asyncio

    from paiju.tools.bots import GAMES, run_bots

    chosen = list(GAMES) if game == "all" else [game]
    if any(g not in GAMES for g in chosen):
        raise typer.BadParameter(f"--game is one of {', '.join(GAMES)} or all")
    lo, _, hi = think.partition("-")
    try:
        span = (float(lo), float(hi or lo))
    except ValueError as e:
        raise typer.BadParameter("--think is MIN-MAX seconds, e.g. 0.5-2") from e
    per_table = games if games is not None or duration is not None else 1
    try:
        summary = asyncio.run(run_bots(gateway, chosen, per_table, tables, span, seed,
                                       progress, duration))
    except OSError as e:
        print(f"paiju bots: cannot reach the gateway at {gateway} ({e.strerror or e}); "
              "is `paiju up` running? (--gateway ws://HOST:PORT/ws)", file=sys.stderr)
        raise typer.Exit(2) from e
    print(json.dumps(summary, ensure_ascii=False))
    if summary["errors"].get("internal"):
        raise typer.Exit(1)


@app.command("ai")
def ai(
    game: Annotated[str, typer.Option(
        help="the game the AI players play (with --pool: one or more, comma separated, "
             "--players AIs for each)")],
    players: Annotated[int, typer.Option(
        help="AI players: they fill idle rooms seat by seat (fewer than a room's "
             "seats leave seats for people)")] = 1,
    level: Annotated[str, typer.Option(
        help="the AI level (normal, hard, random); a game without normal plays random")
                     ] = "normal",
    server: Annotated[str | None, typer.Option(
        help="the coin server to sit at (default: the game's cheapest)")] = None,
    games: Annotated[int | None, typer.Option(
        help="games to play at each table (default: until stopped)")] = None,
    think: Annotated[str, typer.Option(help="seconds an AI thinks per decision: MIN-MAX")
                     ] = "1-3",
    prefix: Annotated[str, typer.Option(help="the AI players' names: PREFIX1, PREFIX2 …")
                      ] = "机器人",
    gateway: Annotated[str, typer.Option(
        help="the gateway's WebSocket URL, or several comma separated")
                       ] = "ws://127.0.0.1:8080/ws",
    metrics_port: Annotated[int | None, typer.Option(
        help="serve Prometheus /metrics on this port (default: none)")] = None,
    metrics_host: Annotated[str, typer.Option(
        envvar="PAIJU_HOST", help="the address /metrics listens on (PAIJU_HOST, as the "
        "services')")] = "127.0.0.1",
    seed: Annotated[int | None, typer.Option(help="seed of the AI players' choices")] = None,
    pool: Annotated[bool, typer.Option(
        help="wait for the lobby's seat requests of practice rooms (练习场) over NATS "
             "instead of sitting at idle rooms")] = False,
    nats_url: Annotated[str, typer.Option(
        "--nats", help="with --pool: the NATS server(s) (default: PAIJU_NATS_URL, else "
        "nats://127.0.0.1:4222); TLS by PAIJU_NATS_TLS_CA (and _CERT, _KEY) as the "
        "services")] = "",
    nats_seed_file: Annotated[str, typer.Option(
        help="with --pool: the NKey seed file of the NATS user ai (paiju nats-config; "
        "default: PAIJU_NATS_NKEY_SEED_FILE)")] = "",
    token_secret: Annotated[str, typer.Option(
        envvar="PAIJU_AI_TOKEN_SECRET", show_default=False,
        help="sign in with AI tokens made with this key (the gateway's "
             "PAIJU_AI_TOKEN_SECRET); unset: development login")] = "",
) -> None:
    """AI players that sit at a game and play through a gateway; the last line
    is a JSON summary. Ctrl-C: each finishes the game it plays, then stops.
    With --pool they wait unseated for the lobby's requests (practice rooms)."""
    import asyncio
    import signal
    from typing import Any

    from paiju.config import load as load_config
    from paiju.security import natsauth, nkey_seeds
    from paiju.tools.ai_worker import level_of, run_ai, run_pool
    from paiju.tools.bots import GAMES, gateways

    chosen = [g.strip() for g in game.split(",")] if pool else [game]
    if not chosen or any(g not in GAMES for g in chosen) or len(set(chosen)) < len(chosen):
        raise typer.BadParameter(f"--game is one of {', '.join(GAMES)}"
                                 + (" (with --pool: several, comma separated, each once)"
                                    if pool else ""))
    try:
        for g in chosen:
            level_of(g, level)
    except KeyError as e:
        raise typer.BadParameter(str(e.args[0])) from e
    if players < 1 or len(prefix) + len(str(players * len(chosen))) > 24:
        raise typer.BadParameter("--players is at least 1, and a name at most 24 characters")
    lo, _, hi = think.partition("-")
    try:
        span = (float(lo), float(hi or lo))
    except ValueError as e:
        raise typer.BadParameter("--think is MIN-MAX seconds, e.g. 1-3") from e
    if metrics_port is not None:
        from paiju.runtime.metrics import serve_metrics

        serve_metrics(metrics_port, metrics_host)
    async def main() -> dict[str, Any]:
        # The first Ctrl-C (or SIGTERM): each AI finishes its game, then stops;
        # a second one stops at once.
        stop, loop = asyncio.Event(), asyncio.get_running_loop()

        def first() -> None:
            stop.set()
            print("paiju ai: finishing the games in play (Ctrl-C again to stop now)",
                  file=sys.stderr)
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)

        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, first)
        if pool:
            # The NATS user ai as a service would connect: its seed, inbox and TLS.
            cfg = load_config("ai")
            options = natsauth.client_options(cfg)
            if nats_seed_file:
                options["nkeys_seed_str"] = nkey_seeds.read_seed(Path(nats_seed_file))
            return await run_pool(gateways(gateway), chosen, players, nats_url or cfg.nats_url,
                                  nats_options=options, stop=stop, level=level,
                                  think=span, prefix=prefix, seed=seed,
                                  token_secret=token_secret)
        return await run_ai(gateways(gateway), game, players, level=level, server=server,
                            games=games, think=span, prefix=prefix, seed=seed, stop=stop,
                            token_secret=token_secret)

    try:
        summary = asyncio.run(main())
    except OSError as e:
        print(f"paiju ai: cannot reach the gateway at {gateway} ({e.strerror or e}); "
              "is `paiju up` running? (--gateway ws://HOST:PORT/ws)", file=sys.stderr)
        raise typer.Exit(2) from e
    print(json.dumps(summary, ensure_ascii=False))


def _admin() -> None:
    from paiju.tools.admin import app as admin_app

    app.add_typer(admin_app, name="admin")


_admin()


def main() -> None:
    """Entry point of the console script."""
    app()


if __name__ == "__main__":
    main()
