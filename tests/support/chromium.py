"""Debian's Chromium driven by playwright, for the tests of pages people use (the admin page, the connect
pages, uploaded files, the OAuth flows): where it is, how it is started, the marks that skip a test
(saying why) without it, and the check that a page fits its screen."""

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
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip
NEEDS_CHROMIUM = [  # skipped here, failed on CI (tests/support/required.py)
    pytest.mark.skipif(
        not Path(CHROMIUM).is_file(),
        reason=lacking("chromium", f"no Chromium at {CHROMIUM} (apt-get install chromium)"),
    ),
    pytest.mark.skipif(
        importlib.util.find_spec("playwright") is None,
        reason=lacking("playwright", "the playwright package is not installed (pip install -e '.[dev]')"),
    ),
]
DESKTOP, PHONE = {"width": 1280, "height": 800}, {"width": 390, "height": 844}
# Every element's box, and how wide the document is (a layout that fits has nothing past the viewport).
BOXES = """() => ({
  width: document.documentElement.scrollWidth,
  overflowing: [...document.querySelectorAll('body *')]
    .filter(el => el.getClientRects().length && el.getBoundingClientRect().right > window.innerWidth + 0.5)
    .map(el => el.tagName + '.' + el.className)
})"""


@contextlib.asynccontextmanager
async def chromium() -> AsyncIterator[Any]:
    """A headless Chromium, closed after."""
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, timeout=60_000)
        try:
            yield launched
        finally:
            await launched.close()


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    """A headless Chromium for one test (`chromium()`); import it into a test module to use it."""
    async with chromium() as launched:
        yield launched
