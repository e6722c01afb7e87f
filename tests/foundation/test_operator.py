"""paiju.security.operator_calls: the name an operator gives (metadata ``x-paiju-operator``)
as the services keep it, and the bounded method label of its counter."""

from __future__ import annotations

from typing import Any

from paiju.security.operator_calls import MAX_NAME, method_label, who


class Metadata:
    """Just the invocation metadata of a call (pure logic under test)."""

    def __init__(self, *pairs: tuple[str, Any]) -> None:
        self.pairs = pairs

    def invocation_metadata(self) -> tuple[tuple[str, Any], ...]:
        return self.pairs


def test_the_operators_name_is_kept_printable_and_bounded() -> None:
    assert who(Metadata(("x-paiju-operator", "ops-mei"))) == "ops-mei"
    assert who(Metadata(("x-paiju-operator", b"li\n\x1b[31m"))) == "li[31m"
    assert who(Metadata(("x-paiju-operator", "x" * 200))) == "x" * MAX_NAME
    assert who(Metadata(("other", "z"))) == "operator"
    assert who(Metadata(("x-paiju-operator", "  "))) == "operator"


def test_the_method_label_is_service_and_method() -> None:
    assert method_label("/paiju.ledger.v1.LedgerService/Adjust") == "LedgerService/Adjust"
    assert method_label("/grpc.health.v1.Health/Check") == "Health/Check"
