"""Rendering the overlays (``kubectl kustomize``) and reading what a pod of a
rendered workload would get: its environment (the image's ``ENV``, ``envFrom``
and ``env`` with ConfigMap, Secret and field references resolved) and the
files of its ConfigMap volumes. Skips the calling test without kubectl."""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO

OVERLAYS = ["dev", "prod"]
PAIJU_SERVICES = {"ledger", "lobby", "table", "gateway"}
Doc = dict[str, Any]


def render(overlay: str) -> list[Doc]:
    """The documents of ``deploy/overlays/<overlay>`` as ``kubectl kustomize`` renders them."""
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed (.ci/run installs Debian's kubectl)")
    out = subprocess.run([kubectl, "kustomize", str(REPO / "deploy" / "overlays" / overlay)],
                         capture_output=True, text=True, check=True, timeout=120)
    return [d for d in yaml.safe_load_all(out.stdout) if d]


def workloads(docs: list[Doc]) -> list[Doc]:
    """The Deployments and StatefulSets of ``docs``."""
    return [d for d in docs if d["kind"] in ("Deployment", "StatefulSet")]


def find(docs: list[Doc], kind: str, name: str) -> Doc:
    """The document of ``kind`` named ``name`` (``KeyError`` if there is none)."""
    for d in docs:
        if d["kind"] == kind and d["metadata"]["name"] == name:
            return d
    raise KeyError(f"{kind}/{name} is not in the rendered manifests")


def config_map_data(docs: list[Doc], name: str) -> dict[str, str]:
    """The data of ConfigMap ``name``."""
    return {k: str(v) for k, v in (find(docs, "ConfigMap", name).get("data") or {}).items()}


def secret_data(docs: list[Doc], name: str) -> dict[str, str]:
    """The decoded data of Secret ``name`` (``data`` is base64, ``stringData`` plain)."""
    secret = find(docs, "Secret", name)
    data = {k: base64.b64decode(v).decode() for k, v in (secret.get("data") or {}).items()}
    data.update({k: str(v) for k, v in (secret.get("stringData") or {}).items()})
    return data


def image_env(dockerfile: Path = REPO / "deploy" / "Dockerfile") -> dict[str, str]:
    """The ``ENV`` of the Dockerfile's last stage (``KEY=value`` pairs)."""
    text = re.sub(r"\\\n", " ", dockerfile.read_text())
    stages = re.split(r"(?m)^FROM ", text)
    env: dict[str, str] = {}
    for line in stages[-1].splitlines():
        if line.startswith("ENV "):
            for pair in line[4:].split():
                key, sep, value = pair.partition("=")
                if sep:
                    env[key] = value
    return env


def pod_name(workload: Doc) -> str:
    """The name of the first pod of ``workload`` (``table-0`` for a StatefulSet,
    ``lobby-<hash>-<id>`` for a Deployment)."""
    name = str(workload["metadata"]["name"])
    return f"{name}-0" if workload["kind"] == "StatefulSet" else f"{name}-5d8f7c9b4-x2x7q"


def container_env(docs: list[Doc], workload: Doc, secrets: Mapping[str, dict[str, str]]
                  ) -> dict[str, str]:
    """The environment of the first container of ``workload``'s first pod: the
    image's ``ENV``, then ``envFrom``, then ``env`` (as the kubelet orders
    them). Secrets are looked up in ``docs`` or else in ``secrets`` (those the
    operator makes); a missing ConfigMap, Secret or key raises ``KeyError``,
    as the pod would fail to start, unless the reference is ``optional``."""

    def secret(name: str) -> dict[str, str]:
        try:
            return secret_data(docs, name)
        except KeyError:
            if name not in secrets:
                raise
            return secrets[name]

    c = workload["spec"]["template"]["spec"]["containers"][0]
    env = image_env()
    for source in c.get("envFrom", []):
        if "configMapRef" in source:
            env.update(config_map_data(docs, source["configMapRef"]["name"]))
        else:
            env.update(secret(source["secretRef"]["name"]))
    fields = {"metadata.name": pod_name(workload),
              "metadata.namespace": str(workload["metadata"].get("namespace", "default"))}
    for e in c.get("env", []):
        if "value" in e:
            env[e["name"]] = expand(str(e["value"]), env)
            continue
        ref = e["valueFrom"]
        try:
            if "secretKeyRef" in ref:
                key = ref["secretKeyRef"]
                env[e["name"]] = secret(key["name"])[key["key"]]
            elif "configMapKeyRef" in ref:
                key = ref["configMapKeyRef"]
                env[e["name"]] = config_map_data(docs, key["name"])[key["key"]]
            else:
                env[e["name"]] = fields[ref["fieldRef"]["fieldPath"]]
        except KeyError:
            if not key.get("optional"):  # an optional key missing: the variable is unset
                raise
    return env


VAR_REF = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)")


def expand(value: str, env: Mapping[str, str]) -> str:
    """``value`` with each ``$(NAME)`` of a variable already in ``env``
    replaced by its value, as the kubelet expands ``env`` entries (an
    unknown one stays as written)."""
    return VAR_REF.sub(lambda m: env.get(m.group(1), m.group(0)), value)


def container_files(docs: list[Doc], workload: Doc,
                    secrets: Mapping[str, dict[str, str]] | None = None
                    ) -> dict[str, dict[str, str] | None]:
    """The mounts of the first container of ``workload``: mount path to the
    files of its ConfigMap or Secret volume (name to content; Secrets from
    ``docs`` or else ``secrets``, those the operator makes), or ``None`` for an
    ``emptyDir`` or a Secret neither holds (one cert-manager makes; what its
    volume holds: :func:`secret_mounts`)."""
    pod = workload["spec"]["template"]["spec"]
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    mounts: dict[str, dict[str, str] | None] = {}
    for m in pod["containers"][0].get("volumeMounts", []):
        volume = volumes[m["name"]]
        if "configMap" in volume:
            mounts[m["mountPath"]] = config_map_data(docs, volume["configMap"]["name"])
        elif "secret" in volume:
            name = volume["secret"]["secretName"]
            try:
                mounts[m["mountPath"]] = secret_data(docs, name)
            except KeyError:
                known = secrets or {}
                mounts[m["mountPath"]] = dict(known[name]) if name in known else None
        else:
            assert "emptyDir" in volume, f"volume {m['name']}: only configMap, secret and emptyDir"
            mounts[m["mountPath"]] = None
    return mounts


def secret_mounts(workload: Doc) -> dict[str, tuple[str, dict[str, str]]]:
    """The Secret volumes the first container of ``workload`` mounts: mount
    path to ``(secret name, {file name: secret key})`` (``items``; a volume
    without ``items`` maps nothing)."""
    pod = workload["spec"]["template"]["spec"]
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    mounts: dict[str, tuple[str, dict[str, str]]] = {}
    for m in pod["containers"][0].get("volumeMounts", []):
        secret = volumes.get(m["name"], {}).get("secret")  # (claims: not volumes)
        if secret is not None:
            files = {item["path"]: item["key"] for item in secret.get("items", [])}
            mounts[m["mountPath"]] = (str(secret["secretName"]), files)
    return mounts
