"""Debian's Chromium driven by playwright (its own browser download cannot work here): where it is,
how it starts headless on this closed network, and the marks that skip (on CI: fail) a browser test
module without it.

    pytestmark = NEEDS_CHROMIUM
    async with chromium() as browser: ...
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.required import lacking

CHROMIUM = os.environ.get("SPECBRIDGE_TEST_CHROMIUM", "/usr/bin/chromium")
# Without the background-networking flags Chromium's own connections are refused here, many at a time.
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip

NEEDS_CHROMIUM = [
    pytest.mark.skipif(
        not Path(CHROMIUM).is_file(),
        reason=lacking("chromium", f"no Chromium at {CHROMIUM} (apt-get install chromium)"),
    ),
    pytest.mark.skipif(
        importlib.util.find_spec("playwright") is None,
        reason=lacking("playwright", "the playwright package is not installed (pip install -e '.[dev]')"),
    ),
]


@contextlib.asynccontextmanager
async def chromium() -> AsyncIterator[Any]:
    """A headless Chromium, closed at the end."""
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, timeout=60_000)
        try:
            yield launched
        finally:
            await launched.close()
