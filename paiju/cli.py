"""The ``paiju`` command: the platform, each service alone, replay and bots.

``paiju up`` runs the whole platform on one machine; ``paiju lobby`` /
``table`` / ``ledger`` / ``gateway`` run one service as a container would;
``paiju replay FILE|-`` checks a game record (shared/spec/records.md);
``paiju bots`` plays games through a gateway.
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
def up() -> None:
    """Run the whole platform: NATS, the four services, SQLite; Ctrl-C stops all."""
    from paiju.platform import main as up_main

    up_main()


@app.command()
def replay(
    file: Annotated[str, typer.Argument(help="a game record (JSON), or - for standard input")],
) -> None:
    """Apply a game record's actions and print the verdicts and result as JSON."""
    from paiju.replay import RecordError, parse_record
    from paiju.replay import replay as run_replay

    try:
        text = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
        out = run_replay(parse_record(text))
    except (OSError, RecordError) as e:
        print(f"paiju replay: {e}", file=sys.stderr)
        raise typer.Exit(2) from e
    print(json.dumps(out, ensure_ascii=False))


def main() -> None:
    """Entry point of the console script."""
    app()


if __name__ == "__main__":
    main()
