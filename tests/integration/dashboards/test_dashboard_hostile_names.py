"""Names from the site are text on the dashboard, never Markdown: checked in a real browser.

Why a browser: the member explorer's heading was `st.markdown(f"**Recommended for {name}**")`,
so a member named `![x](http://…/img.png)` became an image the analyst's browser fetched
from wherever the name pointed. Only a browser shows what it fetched. Here every member
carries such a name, the image's address is a local server that counts its requests, and
the page must show the name as written and fetch nothing.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from dashboards.launch import launch, url_for, wait_until_ready
from tests.support.serve_process import stop
from tests.support.dashboard_warehouse import build_test_warehouse
from tests.support.http_stubs import QuietHandler, serve

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (dev dependency) is not installed")

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture()
def image_server() -> Iterator[tuple[str, list[str]]]:
    """A local server answering any GET with a tiny PNG; the paths it was asked for."""
    asked: list[str] = []

    class Handler(QuietHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            asked.append(self.path)
            self.answer(200, b"\x89PNG\r\n\x1a\n", content_type="image/png")

    server = serve(Handler)
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", asked
    finally:
        server.shutdown()
        server.server_close()


def test_a_member_named_as_markdown_is_shown_as_text_and_fetches_nothing(
        tmp_path: Path, image_server: tuple[str, list[str]]) -> None:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing (tests/integration/dashboards/test_dashboard_browser.py installs it)")
    base, asked = image_server
    name = f"![x]({base}/img.png) **太字** :red[赤]"
    wh = build_test_warehouse(tmp_path / "warehouse.duckdb", n_games=150, n_users=300, seed=3).path
    with duckdb.connect(str(wh)) as con:
        con.execute("UPDATE marts.members SET name = ?", [name])
    port = _free_port()
    with (tmp_path / "streamlit.log").open("wb") as log:
        server = launch(wh, port, log=log)
        try:
            wait_until_ready(url_for(port), timeout=60, process=server)
            with sync_api.sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
                try:
                    tab = browser.new_page(viewport={"width": 1400, "height": 900})
                    tab.goto(f"{url_for(port)}/recommendations")
                    heading = tab.get_by_text("Recommended for", exact=False).first
                    heading.wait_for(timeout=60_000)
                    tab.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                                          timeout=30_000)
                    tab.wait_for_timeout(500)
                    shown = heading.inner_text()
                    images = tab.locator(f'img[src^="{base}"]').count()
                finally:
                    browser.close()
        finally:
            stop(server)
    assert shown == f"Recommended for {name}", shown
    assert images == 0
    assert asked == []
