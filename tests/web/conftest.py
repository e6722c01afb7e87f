"""Browser tests of the web client: real headless Chromium (Debian's
``chromium`` package) driven by Playwright for Python, against the whole
platform as real processes (tests/platform_procs.py).

Chromium is installed here with ``apt-get install -y chromium`` (and the font
that draws Chinese text; no emoji font: the client draws its icons, suits and
jokers as SVG) only when running as root with
``CI=true``; elsewhere a missing browser or Playwright skips these tests with
the reason. Playwright's own browser download is never used: the browser is
launched from ``/usr/bin/chromium``. Screenshots go to ``artifacts/web/``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.platform_procs import Platform, running_platform

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
#: Debian packages: the browser and a CJK font (no emoji font).
APT_PACKAGES = ["chromium", "fonts-wqy-microhei"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "web"


def _apt_install() -> str | None:
    """Install the browser and fonts with apt; the reason it failed, or None."""
    try:
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env,
                       capture_output=True, timeout=300)
        subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends",
                        *APT_PACKAGES], check=True,
                       env=env, capture_output=True, timeout=600)
    except (OSError, subprocess.SubprocessError) as e:
        return f"apt-get install {' '.join(APT_PACKAGES)} failed: {e}"
    return None


@pytest.fixture(scope="session")
def chromium() -> str:
    """The path of Debian's Chromium, installed here under CI as root; skips
    (with the reason) where it is missing and cannot be installed, or where
    the ``playwright`` package is not installed."""
    try:
        import playwright  # noqa: F401
    except ImportError:
        pytest.skip("the playwright package is not installed (pip install playwright)")
    missing = not Path(CHROMIUM).exists() or not shutil.which("fc-list") or not any(
        "WenQuanYi" in line for line in subprocess.run(
            ["fc-list"], capture_output=True, text=True).stdout.splitlines())
    if missing:
        if os.geteuid() == 0 and os.environ.get("CI") == "true":
            reason = _apt_install()
            if reason and not Path(CHROMIUM).exists():
                pytest.skip(reason)
        elif not Path(CHROMIUM).exists():
            pytest.skip(f"{CHROMIUM} is missing: apt-get install -y chromium "
                        "(done by the tests only as root with CI=true)")
    return CHROMIUM


@pytest.fixture(scope="module")
def platform_env() -> dict[str, str]:
    """Extra ``PAIJU_*`` settings (without the prefix) of a test module's
    platform: a quicker paced deal (60 ms a card) so that a full game fits the
    test. A module may override this fixture."""
    return {"TABLE_DEAL_INTERVAL_MS": "60"}


@pytest.fixture(scope="module")
def platform(chromium: str, platform_env: dict[str, str]) -> Iterator[Platform]:
    """NATS and the four services as processes, development mode, with the
    module's ``platform_env``; one platform per test module."""
    with running_platform(platform_env) as p:
        yield p


@pytest.fixture
async def browser(chromium: str) -> AsyncIterator[Any]:
    """A headless Chromium (Playwright ``Browser``)."""
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        b = await pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            await b.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Where screenshots go (gitignored)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
