"""The authorisation table against the protos and the docs (paiju.security.authz)."""

from __future__ import annotations

import importlib
import pkgutil
import re

import paiju
from paiju.security.authz import RULES, allowed, markdown
from paiju.security.identity import IDENTITIES
from tests.fixtures import REPO


def proto_methods() -> set[str]:
    """``/package.Service/Method`` of every RPC in every generated ``*_pb2``
    module under paiju/ (the compiled protos/), read from their descriptors."""
    methods = set()
    for info in pkgutil.walk_packages(paiju.__path__, "paiju."):
        if not info.name.endswith("_pb2"):
            continue
        module = importlib.import_module(info.name)
        for service in module.DESCRIPTOR.services_by_name.values():
            methods |= {f"/{service.full_name}/{m.name}" for m in service.methods}
    return methods


#: The standard services every paiju server adds on its main port.
STANDARD = {"/grpc.health.v1.Health/Check", "/grpc.health.v1.Health/Watch",
            "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"}


def test_every_rpc_of_every_proto_has_exactly_one_rule() -> None:
    methods = proto_methods()
    assert len(methods) >= 27  # lobby 9, table 11, ledger 7 when this was written
    assert methods - set(RULES) == set(), "RPCs without a rule: deny by default, add one"
    assert set(RULES) - methods - STANDARD == set(), "rules for RPCs that do not exist"


def test_rules_name_only_known_identities_and_none_is_open_to_nobody() -> None:
    for method, rule in RULES.items():
        assert rule.callers, method
        assert rule.callers | rule.dev <= set(IDENTITIES), method
        assert not rule.callers & rule.dev, method


def test_the_decided_callers() -> None:
    """Only the table settles, only the lobby creates games,
    seats' views and moves only from the gateway, Grant only from the
    operator (the gateway in development mode only)."""
    ledger, table, lobby = ("/paiju.ledger.v1.LedgerService/", "/paiju.table.v1.TableService/",
                            "/paiju.lobby.v1.LobbyService/")
    assert RULES[ledger + "Settle"].callers == {"table"}
    assert RULES[ledger + "ChargeFee"].callers == {"table"}
    assert RULES[table + "CreateGame"].callers == {"lobby"}
    for m in ("GetView", "GetSeatView", "Hints", "Leave", "Act", "Check", "GetScores",
              "GetLastTrick"):
        assert RULES[table + m].callers == {"gateway"}, m
    assert RULES[lobby + "GameOver"].callers == {"table"}
    assert RULES[ledger + "Grant"].callers == {"operator"}
    assert RULES[ledger + "Grant"].dev == {"gateway"}
    assert not allowed(RULES, ledger + "Grant", "gateway", dev_mode=False)
    assert allowed(RULES, ledger + "Grant", "gateway", dev_mode=True)
    assert not allowed(RULES, ledger + "Settle", "gateway", dev_mode=True)
    assert not allowed(RULES, "/paiju.ledger.v1.LedgerService/Mint", "operator", dev_mode=True)
    # the operator's console: its actions only the operator, in any mode
    for method in (ledger + "Adjust", ledger + "FindAccounts", lobby + "Kick",
                   table + "Kick", table + "EndGame"):
        assert RULES[method].callers == {"operator"} and not RULES[method].dev, method


def test_operations_doc_shows_the_table() -> None:
    text = (REPO / "docs" / "operations.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- authz-table -->\n(.*?)<!-- /authz-table -->", text, re.S)
    assert m, "docs/operations.md has no <!-- authz-table --> section"
    assert m.group(1) == markdown(), ("docs/operations.md's table differs from "
                                      "paiju.security.authz: paste `python -c 'import "
                                      "paiju.security.authz as a; print(a.markdown(), "
                                      "end=\"\")'`")
