"""A real Prometheus (Debian's ``prometheus``) scraping a test platform's
services, with paiju's rules loaded: its scrape jobs generated from what the
rendered ServiceMonitor selects (each Service of paiju with the endpoint's
port, the job named after the Service, the endpoint's path), the instances
those of :class:`tests.platform_procs.Platform`; queries through its HTTP API."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from paiju.tools.up import die_with_parent
from tests.deploy.prometheus import Doc, tool, write_rules
from tests.fixtures import free_port
from tests.platform_procs import Platform, service_of

#: Scrape and rule evaluation every second (the ServiceMonitor's 15 s would
#: make the test wait).
INTERVAL = "1s"


def scrape_jobs(docs: list[Doc]) -> dict[str, str]:
    """The jobs the ServiceMonitor of ``docs`` makes: the name of each Service
    it selects that has the endpoint's port, to the endpoint's path."""
    monitor = next(d for d in docs if d["kind"] == "ServiceMonitor")
    selector = monitor["spec"]["selector"]["matchLabels"]
    endpoint = monitor["spec"]["endpoints"][0]
    jobs = {}
    for d in docs:
        labels = d["metadata"].get("labels") or {}
        if d["kind"] == "Service" and selector.items() <= labels.items() \
                and any(p["name"] == endpoint["port"] for p in d["spec"]["ports"]):
            jobs[d["metadata"]["name"]] = endpoint["path"]
    return jobs


def scrape_config(docs: list[Doc], platform: Platform, rules: Path) -> dict[str, Any]:
    """Prometheus' configuration: a job per :func:`scrape_jobs` with the
    platform's instances of that service as targets, and ``rules``."""
    return {
        "global": {"scrape_interval": INTERVAL, "evaluation_interval": INTERVAL},
        "rule_files": [str(rules)],
        "scrape_configs": [
            {"job_name": job, "metrics_path": path, "static_configs": [{"targets": [
                f"127.0.0.1:{port}" for name, port in platform.metrics.items()
                if service_of(name) == job]}]}
            for job, path in scrape_jobs(docs).items()],
    }


class Prometheus:
    """A ``prometheus`` process with its own storage (:meth:`start`,
    :meth:`close`), queried with :meth:`query`."""

    def __init__(self, docs: list[Doc], platform: Platform) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="paiju-prometheus-"))
        rules = write_rules(docs, self.folder)
        self.config = scrape_config(docs, platform, rules)
        (self.folder / "prometheus.yml").write_text(yaml.safe_dump(self.config))
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = 0

    @property
    def log(self) -> str:
        """What Prometheus logged."""
        path = self.folder / "prometheus.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def start(self, attempts: int = 3, timeout: float = 30.0) -> None:
        """Start Prometheus on a free port and wait until it is ready; a port
        taken in between is tried again (``attempts`` times). ``RuntimeError``
        with its log where it exits or is not ready within ``timeout`` s."""
        for _ in range(attempts):
            self.port = free_port()
            with open(self.folder / "prometheus.log", "wb") as log:
                self.proc = subprocess.Popen(
                    [tool("prometheus"), f"--config.file={self.folder / 'prometheus.yml'}",
                     f"--storage.tsdb.path={self.folder / 'data'}",
                     f"--web.listen-address=127.0.0.1:{self.port}"],
                    stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                    preexec_fn=die_with_parent(os.getpid()))
            deadline = time.monotonic() + timeout
            while self.proc.poll() is None and time.monotonic() < deadline:
                try:
                    with urllib.request.urlopen(self.url("/-/ready"), timeout=1) as r:
                        if r.status == 200:
                            return
                except OSError:
                    pass
                time.sleep(0.1)
            if self.proc.poll() is None:
                self.close()
                raise RuntimeError(f"prometheus was not ready in {timeout} s:\n{self.log}")
            if "address already in use" not in self.log:
                raise RuntimeError(f"prometheus exited:\n{self.log}")
        raise RuntimeError(f"prometheus found no free port in {attempts} attempts")

    def url(self, path: str) -> str:
        """``path`` on Prometheus' web server."""
        return f"http://127.0.0.1:{self.port}{path}"

    def api(self, path: str, **params: str) -> Any:
        """The ``data`` of the HTTP API's answer to ``GET /api/v1/<path>``;
        ``AssertionError`` with Prometheus' error where it refuses."""
        query = urllib.parse.urlencode(params)
        try:
            with urllib.request.urlopen(self.url(f"/api/v1/{path}?{query}"), timeout=10) as r:
                body = json.loads(r.read())
        except urllib.error.HTTPError as e:
            body = json.loads(e.read())
        assert body["status"] == "success", f"{path} {params}: {body.get('error')}"
        return body["data"]

    def query(self, expr: str) -> list[dict[str, Any]]:
        """The instant vector of ``expr`` now (``[{metric, value}]``)."""
        data = self.api("query", query=expr)
        assert data["resultType"] == "vector", f"{expr}: a {data['resultType']}"
        result: list[dict[str, Any]] = data["result"]
        return result

    def until(self, what: str, check: Callable[[], Any], timeout: float = 30.0) -> Any:
        """``check()``'s first true value, asked every 0.25 s;
        ``AssertionError`` naming ``what`` after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            value = check()
            if value:
                return value
            assert time.monotonic() < deadline, f"{what}: not within {timeout} s"
            time.sleep(0.25)

    def close(self) -> None:
        """Stop Prometheus and delete its files."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        shutil.rmtree(self.folder, ignore_errors=True)
