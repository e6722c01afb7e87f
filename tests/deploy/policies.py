"""Which rendered NetworkPolicies let a source reach a pod's port: the
ingress rules of ``networking.k8s.io/v1`` as the Kubernetes documentation
gives them, for the policy tests.

- A pod that no policy with ``Ingress`` in its ``policyTypes`` selects takes
  any ingress; a pod that one selects takes only what some rule of some such
  policy allows (the union).
- A rule allows a connection when one of its ``ports`` matches (none: every
  port) and one of its ``from`` peers matches (none: every source).
- A port is a number or a container port name of the target pod, with a
  protocol (TCP when unset) and an optional ``endPort``.
- A peer is a ``podSelector`` (pods of the policy's namespace), a
  ``namespaceSelector`` (every pod of the selected namespaces), both (the
  selected pods of the selected namespaces), or an ``ipBlock``.

Simplification: an ``ipBlock`` is matched against sources outside the
cluster only (a source with an ``ip``), never against pod addresses. Traffic
from a pod's own node (the kubelet's probes) is not modelled: the CNIs let it
through whatever the policies say (docs/operations.md).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from typing import Any

Doc = dict[str, Any]


@dataclass(frozen=True)
class Source:
    """Where a connection comes from: a pod (its namespace's labels and its
    own labels) or, with ``ip``, an address outside the cluster."""

    name: str
    namespace_labels: dict[str, str] = field(default_factory=dict)
    pod_labels: dict[str, str] = field(default_factory=dict)
    ip: str | None = None

    @property
    def namespace(self) -> str | None:
        return self.namespace_labels.get("kubernetes.io/metadata.name")


def selects(selector: Doc | None, labels: dict[str, str]) -> bool:
    """True if the label selector (``matchLabels`` and ``matchExpressions``:
    In, NotIn, Exists, DoesNotExist) matches ``labels``; ``{}`` matches all."""
    selector = selector or {}
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expr in selector.get("matchExpressions") or []:
        key, op, values = expr["key"], expr["operator"], expr.get("values") or []
        present = key in labels
        if op == "In" and not (present and labels[key] in values):
            return False
        if op == "NotIn" and present and labels[key] in values:
            return False
        if op == "Exists" and not present:
            return False
        if op == "DoesNotExist" and present:
            return False
        if op not in ("In", "NotIn", "Exists", "DoesNotExist"):
            raise ValueError(f"unknown selector operator {op!r}")
    return True


def _policy_types(policy: Doc) -> list[str]:
    spec = policy["spec"]
    if "policyTypes" in spec:
        return list(spec["policyTypes"])
    return ["Ingress", "Egress"] if "egress" in spec else ["Ingress"]


def _port_matches(rule_port: Doc, port: Doc) -> bool:
    if rule_port.get("protocol", "TCP") != port.get("protocol", "TCP"):
        return False
    want: int | str | None = rule_port.get("port")
    if want is None:
        return True
    if isinstance(want, str):
        return want == port.get("name")
    end = int(rule_port.get("endPort", want))
    return want <= int(port["containerPort"]) <= end


def _peer_matches(peer: Doc, source: Source, policy_namespace: str) -> bool:
    if "ipBlock" in peer:
        if source.ip is None:
            return False
        ip = ipaddress.ip_address(source.ip)
        block = peer["ipBlock"]
        return ip in ipaddress.ip_network(block["cidr"]) and not any(
            ip in ipaddress.ip_network(e) for e in block.get("except") or [])
    if source.ip is not None:  # an outside address is no pod
        return False
    if "namespaceSelector" in peer:
        if not selects(peer["namespaceSelector"], source.namespace_labels):
            return False
    elif source.namespace != policy_namespace:
        return False
    return "podSelector" not in peer or selects(peer["podSelector"], source.pod_labels)


def allows(policies: list[Doc], namespace: str, pod_labels: dict[str, str], port: Doc,
           source: Source) -> bool:
    """True if ``source`` may connect to container ``port`` (a ``ports``
    entry: ``name``, ``containerPort``, ``protocol``) of a pod with
    ``pod_labels`` in ``namespace`` under ``policies``."""
    isolating = [p for p in policies if p["metadata"].get("namespace", "default") == namespace
                 and "Ingress" in _policy_types(p)
                 and selects(p["spec"]["podSelector"], pod_labels)]
    if not isolating:
        return True
    for policy in isolating:
        for rule in policy["spec"].get("ingress") or []:
            ports = rule.get("ports") or []
            if ports and not any(_port_matches(rp, port) for rp in ports):
                continue
            peers = rule.get("from") or []
            if not peers or any(_peer_matches(peer, source, namespace) for peer in peers):
                return True
    return False
