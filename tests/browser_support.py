"""The real browser of the page tests (docs/serve.md): Debian's Chromium (``/usr/bin/chromium``,
installed by .ci/run with apt-get) driven by Playwright through ``executable_path``, at phone size.

Importing this module skips the importing test module where Chromium, Playwright or uvicorn is
absent. The fixtures ``browser`` (one Chromium per module) and ``shots`` are in conftest.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
if not Path(CHROMIUM).exists():
    pytest.skip(f"{CHROMIUM} is absent (apt-get install chromium; .ci/run does)", allow_module_level=True)
playwright = pytest.importorskip("playwright.sync_api")
pytest.importorskip("uvicorn")

#: Chromium's flags: headless, no sandbox (root in CI), nothing fetched from the network.
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
#: The phone screen the pages are built for (CSS pixels).
PHONE = {"width": 390, "height": 844}
