"""deploy/: the service identity certificates. cert-manager's
kinds have no schema in the offline validation, so this checks their
structure: a CA Issuer (its CA made by a self-signed bootstrap Issuer in dev,
brought by the operator in prod), one Certificate per identity whose common
name and DNS name are the identity (what paiju/security/identity.py checks and what
clients verify servers by), and each service pod mounting its own
certificate at PAIJU_TLS_DIR under the file names the services read
(``ca.pem``, ``<identity>.pem``, ``<identity>-key.pem``), with its probes on
the plain health port."""

from __future__ import annotations

import pytest

from tests.conftest import REPO
from tests.deploy.manifests import (
    OVERLAYS,
    Doc,
    container_env,
    find,
    render,
    secret_mounts,
    workloads,
)
from tests.deploy.test_start_from_manifests import operator_secrets

#: "ai": the AI players' worker's, NATS's client certificate check only (no
#: gRPC service takes it, paiju/security/authz.py).
IDENTITIES = ("lobby", "table", "ledger", "gateway", "operator", "ai")
#: The fields of cert-manager.io/v1 (cert-manager 1.x's CRDs) used or allowed here.
CERTIFICATE_FIELDS = {
    "secretName", "commonName", "dnsNames", "ipAddresses", "uris", "emailAddresses",
    "subject", "duration", "renewBefore", "privateKey", "usages", "issuerRef", "isCA",
    "secretTemplate", "revisionHistoryLimit", "additionalOutputFormats",
}
PRIVATE_KEY_FIELDS = {"algorithm", "size", "encoding", "rotationPolicy"}
USAGES = {"digital signature", "key encipherment", "server auth", "client auth", "cert sign",
          "crl sign"}
ISSUER_TYPES = {"ca", "selfSigned", "acme", "vault", "venafi"}


def cm(docs: list[Doc], kind: str) -> list[Doc]:
    return [d for d in docs if d["kind"] == kind and d["apiVersion"] == "cert-manager.io/v1"]


def check_certificate(docs: list[Doc], cert: Doc) -> None:
    name = cert["metadata"]["name"]
    spec = cert["spec"]
    assert set(spec) <= CERTIFICATE_FIELDS, (name, set(spec) - CERTIFICATE_FIELDS)
    assert spec["secretName"], name
    assert set(spec.get("privateKey", {})) <= PRIVATE_KEY_FIELDS, name
    assert set(spec.get("usages", [])) <= USAGES, name
    ref = spec["issuerRef"]
    assert ref.get("group", "cert-manager.io") == "cert-manager.io", name
    issuer = find(docs, ref.get("kind", "Issuer"), ref["name"])
    assert issuer["metadata"].get("namespace") == cert["metadata"].get("namespace"), name
    assert len(set(issuer["spec"]) & ISSUER_TYPES) == 1, issuer["metadata"]["name"]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_one_certificate_per_identity_from_the_ca_issuer(overlay: str) -> None:
    docs = render(overlay)
    for cert in cm(docs, "Certificate"):
        check_certificate(docs, cert)
    ca_issuer = find(docs, "Issuer", "paiju-ca")
    ca_secret = ca_issuer["spec"]["ca"]["secretName"]
    by_cn = {c["spec"].get("commonName"): c for c in cm(docs, "Certificate")
             if not c["spec"].get("isCA") and c["spec"].get("commonName") != "nats"}
    assert set(by_cn) == set(IDENTITIES), overlay  # (NATS's own: tests/deploy/test_nats_tls.py)
    secrets = set()
    for identity in IDENTITIES:
        spec = by_cn[identity]["spec"]
        assert spec["dnsNames"] == [identity], identity
        assert spec["issuerRef"]["name"] == "paiju-ca" and spec["issuerRef"]["kind"] == "Issuer"
        assert {"server auth", "client auth"} <= set(spec["usages"]), identity
        assert spec["privateKey"]["algorithm"] == "ECDSA", identity
        assert spec["privateKey"]["rotationPolicy"] == "Always", identity
        assert spec["secretName"] != ca_secret, identity
        secrets.add(spec["secretName"])
    assert len(secrets) == len(IDENTITIES), "each identity has its own Secret"
    bootstrap = [c for c in cm(docs, "Certificate") if c["spec"].get("isCA")]
    if overlay == "dev":  # cert-manager makes the CA: a self-signed Issuer signs it
        assert [c["spec"]["secretName"] for c in bootstrap] == [ca_secret]
        signer = find(docs, "Issuer", bootstrap[0]["spec"]["issuerRef"]["name"])
        assert "selfSigned" in signer["spec"]
    else:  # the operator brings the CA's key pair (docs/operations.md)
        assert not bootstrap
        assert not any("selfSigned" in i["spec"] for i in cm(docs, "Issuer"))
        doc = (REPO / "docs" / "operations.md").read_text()
        assert f"create secret tls {ca_secret}" in doc


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_each_service_mounts_its_own_certificate_at_its_tls_dir(overlay: str) -> None:
    docs = render(overlay)
    by_secret = {c["spec"]["secretName"]: c["spec"]["commonName"]
                 for c in cm(docs, "Certificate")}
    seen = set()
    for w in workloads(docs):
        container = w["spec"]["template"]["spec"]["containers"][0]
        service = (container.get("args") or [""])[0]
        if service not in IDENTITIES:
            continue
        seen.add(service)
        env = container_env(docs, w, operator_secrets())
        mounts = secret_mounts(w)
        tls_dir = env["PAIJU_TLS_DIR"]
        assert tls_dir in mounts, f"{service}: nothing is mounted at PAIJU_TLS_DIR={tls_dir}"
        secret, files = mounts[tls_dir]
        assert by_secret.get(secret) == service, f"{service} mounts {secret}"
        # cert-manager's keys to the names paiju/security/identity.py reads
        assert files == {"ca.pem": "ca.crt", f"{service}.pem": "tls.crt",
                         f"{service}-key.pem": "tls.key"}, service
        mount = next(m for m in container["volumeMounts"] if m["mountPath"] == tls_dir)
        assert mount.get("readOnly") is True, service
        # the key is not world-readable (the pod's fsGroup reads it)
        volume = next(v for v in w["spec"]["template"]["spec"]["volumes"]
                      if v["name"] == mount["name"])
        assert volume["secret"]["defaultMode"] & 0o007 == 0, service
        assert w["spec"]["template"]["spec"]["securityContext"]["fsGroup"] is not None
    assert seen == {"lobby", "table", "ledger", "gateway", "ai"}, overlay


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_probes_use_the_plain_health_port(overlay: str) -> None:
    """The gRPC port takes mutual TLS only, which the kubelet cannot speak:
    every probe asks the health port (PAIJU_HEALTH_PORT), never the gRPC one."""
    docs = render(overlay)
    for w in workloads(docs):
        container = w["spec"]["template"]["spec"]["containers"][0]
        service = (container.get("args") or [""])[0]
        if service not in IDENTITIES or service == "ai":  # no gRPC port: /metrics probes
            continue
        env = container_env(docs, w, operator_secrets())
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        assert ports["health"] == int(env["PAIJU_HEALTH_PORT"]), service
        assert ports["health"] != ports["grpc"], service
        for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
            assert container[probe]["grpc"]["port"] == ports["health"], (service, probe)
