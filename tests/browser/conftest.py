"""Playwright (sync API) driving Debian's chromium against pytest-django's live server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
# htmx as shipped by django-htmx, served if the page asks for a path that does not exist.
HTMX_JS = "django_htmx/htmx-2.min.js"


@pytest.fixture
def browser(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    # The sync Playwright API runs an event loop in this thread; Django's ORM (fixtures,
    # assertions, the database teardown) would otherwise refuse to run beside it. Set only
    # while a browser test runs: `check --deploy` in other tests refuses the variable.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: object, live_server: object) -> Iterator[object]:
    from django.contrib.staticfiles import finders

    context = browser.new_context(viewport={"width": 1400, "height": 1000})  # type: ignore[attr-defined]
    context.set_default_timeout(10_000)
    htmx_path = finders.find(HTMX_JS)
    page = context.new_page()

    def serve_htmx(route: object) -> None:
        # base.html may name a static path for htmx that does not exist; serve the real file.
        response = route.fetch()  # type: ignore[attr-defined]
        if response.status == 404 and htmx_path:
            route.fulfill(path=htmx_path, content_type="text/javascript")  # type: ignore[attr-defined]
        else:
            route.fulfill(response=response)  # type: ignore[attr-defined]

    page.route("**/*htmx*.js", serve_htmx)
    yield page
    context.close()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture(autouse=True)
def _pages_poll_the_live_server(settings: Any) -> None:
    """The live server shares one in-memory SQLite connection between its threads; a
    page's event stream holds a thread and its lookups meet the test's own queries
    ("database table is locked"). Here pages fall back to polling (the stream answers
    204, as under a WSGI server without stream threads): the streams themselves are
    tested in tests/test_live_streams.py and, on the shipped server, tests/test_deploy.py."""
    settings.LIVE_STREAM_THREADS = False
