"""deploy/: NATS over TLS in production. cert-manager's kinds have
no schema in the offline validation, so this checks the structure: the prod
overlay's NATS servers serve clients and routes over TLS only (``tls {}``
blocks, client certificates verified) with the Certificate ``paiju-nats``
from the services' CA Issuer, mounted where the blocks read it; its names
cover every host of ``PAIJU_NATS_URL`` and every route; every paiju service
reaches NATS with ``tls://`` URLs, verifies it against the CA it has mounted
(``PAIJU_NATS_TLS_CA``) and shows its own service certificate
(``PAIJU_NATS_TLS_CERT`` / ``_KEY``). The dev overlay's laptop NATS stays in
plain text (docs/operations.md says so). A real TLS NATS is
tests/foundation/test_nats_tls.py; the prod pods start against one in
tests/deploy/test_start_from_manifests.py."""

from __future__ import annotations

import re

from tests.deploy.manifests import (
    PAIJU_SERVICES,
    Doc,
    config_map_data,
    container_env,
    find,
    render,
    secret_mounts,
    workloads,
)
from tests.deploy.test_certificates import check_certificate
from tests.deploy.test_start_from_manifests import operator_secrets


def blocks(conf: str) -> dict[str, dict[str, str]]:
    """The ``tls {}`` blocks of a nats.conf by where they are (``""``: the
    clients' top level, ``cluster``): their ``key: value`` settings."""
    out: dict[str, dict[str, str]] = {}
    for m in re.finditer(r"(?m)^(\s*)tls \{(.*?)^\1\}", conf, re.S):
        before = conf[:m.start()]
        opened = [b for b in re.findall(r"(?m)^\s*(\w+) \{", before)]
        closed = len(re.findall(r"(?m)^\s*\}", before))
        where = opened[closed:] if len(m.group(1)) else []
        settings = dict(re.findall(r'(?m)^\s*(\w+):\s*"?([^"\n]+?)"?\s*$', m.group(2)))
        out[where[-1] if where else ""] = settings
    return out


def nats_pod(docs: list[Doc]) -> Doc:
    return find(docs, "StatefulSet", "nats")


def test_prod_nats_serves_clients_and_routes_over_tls_with_its_certificate() -> None:
    docs = render("prod")
    conf = config_map_data(docs, "nats-config")["nats.conf"]
    found = blocks(conf)
    assert set(found) == {"", "cluster"}, found
    pod = nats_pod(docs)
    mounts = secret_mounts(pod)
    container = pod["spec"]["template"]["spec"]["containers"][0]
    volumes = {v["name"]: v for v in pod["spec"]["template"]["spec"]["volumes"]}
    cert = find(docs, "Certificate", "paiju-nats")
    check_certificate(docs, cert)
    spec = cert["spec"]
    assert spec["issuerRef"]["name"] == "paiju-ca", "the services' CA signs NATS's certificate"
    assert {"server auth", "client auth"} <= set(spec["usages"])  # routes are clients too
    assert spec["privateKey"]["rotationPolicy"] == "Always"
    for where, settings in found.items():
        assert settings.get("verify") == "true", f"{where or 'clients'}: certificates verified"
        for key, file_key in (("cert_file", "tls.crt"), ("key_file", "tls.key"),
                              ("ca_file", "ca.crt")):
            path = settings[key]
            folder, _, name = path.rpartition("/")
            secret = next((s for m, s in ((m.rstrip("/"), v[0]) for m, v in mounts.items())
                           if m == folder), None)
            assert secret == spec["secretName"], f"{where}: {path} is not paiju-nats's Secret"
            assert name == file_key, path  # cert-manager's key names (no items)
    mount = next(m for m in container["volumeMounts"] if m["mountPath"] == "/etc/nats-tls")
    assert mount.get("readOnly") is True
    assert volumes[mount["name"]]["secret"]["defaultMode"] & 0o007 == 0
    # every route and the servers' Service name are on the certificate
    routes = re.findall(r"nats://([\w.-]+):6222", conf)
    assert routes and set(routes) <= set(spec["dnsNames"]), (routes, spec["dnsNames"])
    assert "nats" in spec["dnsNames"]


def test_every_prod_service_reaches_nats_over_tls_as_itself() -> None:
    docs = render("prod")
    names = set(find(docs, "Certificate", "paiju-nats")["spec"]["dnsNames"])
    seen = set()
    for w in workloads(docs):
        container = w["spec"]["template"]["spec"]["containers"][0]
        service = (container.get("args") or [""])[0]
        if service not in PAIJU_SERVICES | {"ai"}:
            continue
        seen.add(service)
        env = container_env(docs, w, operator_secrets())
        urls = env["PAIJU_NATS_URL"].split(",")
        assert all(u.startswith("tls://") for u in urls), (service, urls)
        assert {u.split("//")[1].rsplit(":", 1)[0] for u in urls} <= names, service
        tls_dir = env["PAIJU_TLS_DIR"]
        secret, files = secret_mounts(w)[tls_dir]
        assert env["PAIJU_NATS_TLS_CA"] == f"{tls_dir}/ca.pem" and files["ca.pem"] == "ca.crt"
        assert env["PAIJU_NATS_TLS_CERT"] == f"{tls_dir}/{service}.pem", service
        assert env["PAIJU_NATS_TLS_KEY"] == f"{tls_dir}/{service}-key.pem", service
        assert secret == f"paiju-tls-{service}", service
    assert seen == PAIJU_SERVICES | {"ai"}  # the AI players' worker too


def test_the_dev_overlay_keeps_a_plain_laptop_nats() -> None:
    docs = render("dev")
    assert not blocks(config_map_data(docs, "nats-config")["nats.conf"])
    for w in workloads(docs):
        env = container_env(docs, w, operator_secrets())
        assert "PAIJU_NATS_TLS_CA" not in env
