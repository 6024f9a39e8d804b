"""A report page opened in headless Chromium, as a reader would: script errors, and a
screenshot (``kafka-harness run --screenshot`` keeps it as ``report.png``).

Playwright (the dev extras) drives the system's Chromium (Debian's ``chromium``, installed
by ``make setup``) through ``executable_path``, so no browser is ever downloaded.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from harness.errors import HarnessError

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

CHROMIUM_NAMES = ("chromium", "chromium-browser")
WIDTH = 1400
PLOTS_DRAWN_S = 30  # how long a page may take to draw its plots


def chromium() -> str:
    """The system Chromium's path; a HarnessError saying how to get one (and playwright) otherwise."""
    try:
        import playwright.sync_api  # noqa: F401  (only whether it is there)
    except ImportError:
        raise HarnessError("opening a report needs playwright: pip install -e '.[dev]' (make setup does)") from None
    found = next((p for name in CHROMIUM_NAMES if (p := shutil.which(name))), None)
    if found is None:
        raise HarnessError("no chromium found; install it: make setup (Debian: apt-get install chromium)")
    return found


@contextmanager
def browser() -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    path = chromium()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=["--no-sandbox"])
        try:
            yield b
        finally:
            b.close()


@contextmanager
def opened(b: Browser, page_file: Path, errors: list[str]) -> Iterator[Page]:
    """``page_file`` loaded, its plots drawn; script errors (uncaught, or logged as errors) land in ``errors``."""
    page = b.new_page(viewport={"width": WIDTH, "height": 1000})
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    try:
        page.goto(page_file.resolve().as_uri(), wait_until="load")
        plots = page.locator(".js-plotly-plot").count()
        page.wait_for_function(
            f"document.querySelectorAll('.js-plotly-plot .main-svg').length >= {plots}", timeout=PLOTS_DRAWN_S * 1000
        )
        yield page
    finally:
        page.close()


def capture(page_file: Path, png: Path) -> list[str]:
    """A full-page screenshot of ``page_file`` into ``png``; the script errors the page had."""
    errors: list[str] = []
    with browser() as b, opened(b, page_file, errors) as page:
        page.screenshot(path=str(png), full_page=True)
    return errors
