"""CI installs no emoji font: the browser tests' icon checks
(test_web_polish.py: no emoji code point in the rendered text, an SVG for
every icon) then run where emoji would show as empty boxes, as on a stock
Linux browser. Read from the two places that install packages: .ci/run and
tests/web/conftest.py (``APT_PACKAGES``)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.web.conftest import APT_PACKAGES

ROOT = Path(__file__).resolve().parents[2]
#: Debian's emoji and symbol fonts (apt-cache search emoji / symbols font).
EMOJI_FONT = re.compile(r"emoji|noto-color|twemoji|symbola|fonts-noto(?:\s|$)|fonts-ancient",
                        re.IGNORECASE)


def _ci_packages() -> list[str]:
    text = (ROOT / ".ci" / "run").read_text()
    return re.findall(r"apt_packages\+=\(([^)]*)\)", text)


def test_ci_and_the_browser_fixture_install_no_emoji_font() -> None:
    ci = _ci_packages()
    assert ci, ".ci/run lists its Debian packages in apt_packages+=(…)"
    assert "fonts-wqy-microhei" in " ".join(ci) and "fonts-wqy-microhei" in APT_PACKAGES
    for pkg in [*ci, *APT_PACKAGES]:
        assert not EMOJI_FONT.search(pkg), f"an emoji font is installed: {pkg}"
    run = (ROOT / ".ci" / "run").read_text()
    assert "--no-install-recommends" in run
    assert "--no-install-recommends" in (ROOT / "tests" / "web" / "conftest.py").read_text()


def test_no_emoji_font_on_the_ci_machine() -> None:
    """Under CI no installed font draws 💰 (U+1F4B0) or ⏱ (U+23F1)."""
    if os.environ.get("CI") != "true":
        pytest.skip("checked on CI's machine (CI=true) only: a developer's may have emoji fonts")
    if not shutil.which("fc-list"):
        pytest.skip("fc-list (fontconfig) is missing")
    for cp in ("1f4b0", "23f1"):
        out = subprocess.run(["fc-list", f":charset={cp}"], capture_output=True, text=True)
        assert out.stdout.strip() == "", f"a font draws U+{cp.upper()}: {out.stdout}"
