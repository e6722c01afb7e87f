"""deploy/: the NetworkPolicies of both rendered overlays let exactly the
intended callers reach each port of each workload: clients reach
only the gateway's WebSocket port; each service's gRPC port only its
callers (lobby: gateway, table; table: gateway, lobby, table; ledger:
gateway, lobby, table, as services/*/ create their stubs); metrics only
Prometheus; NATS and PostgreSQL only paiju's services; the health ports no
pod and no outside address (the kubelet's probes come from the node, which
the CNI lets through; docs/operations.md). Every port of every workload must
be in the table below, so a new port fails here until someone decides who
may reach it."""

from __future__ import annotations

import pytest

from tests.deploy.manifests import OVERLAYS, Doc, render, workloads
from tests.deploy.policies import Source, allows

NAME = "app.kubernetes.io/name"


def ns(name: str) -> dict[str, str]:
    return {"kubernetes.io/metadata.name": name}


def strangers(namespace: str) -> list[Source]:
    """Sources that are not the workloads of ``namespace``."""
    return [
        Source("another pod of the namespace", ns(namespace), {NAME: "debug"}),
        Source("a pod labelled gateway in another namespace", ns("intruder"),
               {NAME: "gateway", "app.kubernetes.io/part-of": "paiju"}),
        Source("prometheus", ns("monitoring"), {NAME: "prometheus", "prometheus": "k8s"}),
        Source("another pod of monitoring", ns("monitoring"), {NAME: "grafana"}),
        Source("a pod labelled prometheus in another namespace", ns("intruder"),
               {NAME: "prometheus"}),
        Source("the internet", ip="203.0.113.7"),
    ]
EVERYONE = "everyone"
#: (workload, container port name) -> who may connect (workload names, stranger names).
EXPECTED: dict[tuple[str, str], set[str]] = {
    ("gateway", "http"): {EVERYONE},
    ("gateway", "grpc"): set(),  # nothing calls the gateway
    ("lobby", "grpc"): {"gateway", "table"},
    ("table", "grpc"): {"gateway", "lobby", "table"},
    ("ledger", "grpc"): {"gateway", "lobby", "table"},
    **{(s, "metrics"): {"prometheus"} for s in ("gateway", "lobby", "table", "ledger", "ai")},
    **{(s, "health"): set() for s in ("gateway", "lobby", "table", "ledger")},
    ("nats", "client"): {"gateway", "lobby", "table", "ledger", "ai"},
    ("nats", "cluster"): {"nats"},
    ("nats", "monitor"): set(),
    ("postgres", "postgres"): {"lobby", "table", "ledger"},
}


def namespace_of(docs: list[Doc]) -> str:
    names = {d["metadata"].get("namespace") for d in workloads(docs)}
    assert len(names) == 1, names
    return str(names.pop())


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_port_is_reachable_exactly_by_its_callers(overlay: str) -> None:
    docs = render(overlay)
    namespace = namespace_of(docs)
    policies = [d for d in docs if d["kind"] == "NetworkPolicy"]
    assert policies, f"{overlay}: no NetworkPolicy"
    own = [Source(w["metadata"]["name"], ns(namespace), w["spec"]["template"]["metadata"]["labels"])
           for w in workloads(docs)]
    sources = own + strangers(namespace)
    wrong = []
    for w in workloads(docs):
        labels = w["spec"]["template"]["metadata"]["labels"]
        for container in w["spec"]["template"]["spec"]["containers"]:
            for port in container.get("ports", []):
                key = (w["metadata"]["name"], port["name"])
                assert key in EXPECTED, f"{overlay}: who may reach {key}? add it to EXPECTED"
                want = EXPECTED[key]
                for source in sources:
                    expected = EVERYONE in want or source.name in want
                    if allows(policies, namespace, labels, port, source) != expected:
                        wrong.append(f"{key[0]}:{key[1]} from {source.name}: "
                                     f"{'refused' if expected else 'allowed'}")
    assert not wrong, f"{overlay}:\n" + "\n".join(wrong)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_namespace_denies_ingress_by_default(overlay: str) -> None:
    """A pod added later without a policy of its own is closed, not open."""
    docs = render(overlay)
    namespace = namespace_of(docs)
    deny = [d for d in docs if d["kind"] == "NetworkPolicy" and d["spec"]["podSelector"] == {}
            and d["spec"].get("policyTypes") == ["Ingress"] and not d["spec"].get("ingress")]
    assert deny, f"{overlay}: no default-deny ingress policy"
    policies = [d for d in docs if d["kind"] == "NetworkPolicy"]
    newcomer = {NAME: "something-new", "app.kubernetes.io/part-of": "paiju"}
    port = {"name": "http", "containerPort": 8080}
    for source in strangers(namespace):
        assert not allows(policies, namespace, newcomer, port, source), source.name


def test_the_evaluator_reads_policies_as_kubernetes_does() -> None:
    """The rules the policy test relies on, on hand-written policies: an
    unselected pod is open, a selected one takes only its rules, a
    podSelector alone means the policy's namespace, both selectors in one
    peer mean both."""
    web = {"name": "http", "containerPort": 8080}
    here, there = ns("app"), ns("other")
    friend_here = Source("friend", here, {"role": "friend"})
    friend_there = Source("friend elsewhere", there, {"role": "friend"})
    other_there = Source("other elsewhere", there, {"role": "other"})
    pod = {"role": "web"}
    assert allows([], "app", pod, web, friend_there)
    only_friends = {"metadata": {"name": "p", "namespace": "app"},
                    "spec": {"podSelector": {"matchLabels": {"role": "web"}},
                             "ingress": [{"from": [{"podSelector": {
                                 "matchLabels": {"role": "friend"}}}],
                                 "ports": [{"port": "http"}]}]}}
    assert allows([only_friends], "app", pod, web, friend_here)
    assert not allows([only_friends], "app", pod, web, friend_there)
    assert not allows([only_friends], "app", pod, {"name": "grpc", "containerPort": 50051},
                      friend_here)
    both = {"metadata": {"name": "q", "namespace": "app"},
            "spec": {"podSelector": {}, "policyTypes": ["Ingress"],
                     "ingress": [{"from": [{"namespaceSelector": {"matchLabels": there},
                                            "podSelector": {"matchLabels": {"role": "friend"}}}]}]}}
    assert allows([both], "app", pod, web, friend_there)
    assert not allows([both], "app", pod, web, other_there)
    assert not allows([both], "app", pod, web, friend_here)
    assert allows([only_friends, both], "app", pod, web, friend_here)  # the union


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_ai_worker_reaches_the_gateway_nats_and_dns_only(overlay: str) -> None:
    """The AI players' pods are clients: their one egress policy lets them
    reach the gateway's WebSocket port and NATS's client port (as the
    workloads declare them) and the cluster's DNS, nothing else."""
    docs = render(overlay)
    ai = next(w for w in workloads(docs) if w["metadata"]["name"] == "ai")
    labels = ai["spec"]["template"]["metadata"]["labels"]
    egress = [d for d in docs if d["kind"] == "NetworkPolicy"
              and "Egress" in d["spec"].get("policyTypes", [])
              and all(labels.get(k) == v
                      for k, v in d["spec"]["podSelector"].get("matchLabels", {}).items())]
    assert len(egress) == 1, [d["metadata"]["name"] for d in egress]

    def port_of(workload: str, name: str) -> int:
        w = next(w for w in workloads(docs) if w["metadata"]["name"] == workload)
        return int(next(p["containerPort"] for c in w["spec"]["template"]["spec"]["containers"]
                        for p in c.get("ports", []) if p["name"] == name))

    reached = set()
    for rule in egress[0]["spec"]["egress"]:
        for peer in rule["to"]:
            who = peer["podSelector"]["matchLabels"]
            name = who.get(NAME) or who.get("k8s-app")
            if "namespaceSelector" in peer:
                assert peer["namespaceSelector"]["matchLabels"] == ns("kube-system"), peer
            for port in rule["ports"]:
                reached.add((name, port["port"], port["protocol"]))
    assert reached == {("gateway", port_of("gateway", "http"), "TCP"),
                       ("nats", port_of("nats", "client"), "TCP"),
                       ("kube-dns", 53, "UDP"), ("kube-dns", 53, "TCP")}
