"""`bodoge crawl --probe --base-url URL`, run as an operator runs it, against the sample site.

Why: the probe is what an operator reads before trusting the incremental night on a
site; each variant of the sample site takes one signal away, and the probe must say so
and name the fallback, while the plain site gets every fast strategy.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from samplesite import SampleSiteServer
from samplesite.model import Site
from samplesite.variants import NO_DIRECTORY_UPDATES, NO_PAGINATION_ONE_PAGE, NO_PRIVATE_MARKER, NO_VALIDATORS
from tests.support.samplesite_fixtures import small  # noqa: F401

REPO = Path(__file__).resolve().parents[2]
FAST = {"directory_counts": "expect-directory-count", "directory_updates": "skip-unchanged",
        "private_marker": "trust-marker", "sort_order": "stop-at-first-known", "listing_totals": "listing-total",
        "validators": "conditional-get"}


def probe(base_url: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bodoge.cli", "crawl", "--probe", "--base-url", base_url],
                          capture_output=True, text=True, encoding="utf-8", cwd=REPO, timeout=120)


def strategies(out: str) -> dict[str, str]:
    """signal → the strategy its line names."""
    return {m[1]: m[2] for m in re.finditer(r"^  (\w+)\s+\w+ \(.*?\) → the night uses ([\w-]+)", out, re.M)}


def test_the_plain_site_gets_every_fast_strategy_politely(small: Site) -> None:  # noqa: F811
    with SampleSiteServer(small) as srv:
        run = probe(srv.base_url)
        fetched = [t for _, t, _ in srv.requests]
    assert run.returncode == 0, run.stderr
    assert strategies(run.stdout) == FAST, run.stdout
    assert fetched[0] == "/robots.txt" and not any(t.startswith(("/login", "/mypage")) for t in fetched)
    assert 15 <= len(set(fetched)) <= 50, fetched  # a few dozen pages
    assert sum(t.startswith("/games/") for t in fetched) >= 2 * 2  # game pages asked twice (conditional)
    assert any(t.startswith("/spaces/") and t.endswith("/games") for t in fetched)
    assert "show a pagination block: yes" in run.stdout


@pytest.mark.parametrize(("variant", "signal", "fallback"), [
    (NO_DIRECTORY_UPDATES, "directory_updates", "read-page-1"),
    (NO_PRIVATE_MARKER, "private_marker", "read-page-1"),
    (NO_VALIDATORS, "validators", "body-sha256"),
])
def test_each_variant_is_named_with_its_fallback(small: Site, variant: str, signal: str,  # noqa: F811
                                                 fallback: str) -> None:
    with SampleSiteServer(small, variants={variant}, transient_faults=False) as srv:
        run = probe(srv.base_url)
    assert run.returncode == 0, run.stderr
    assert strategies(run.stdout) == {**FAST, signal: fallback}, run.stdout


def test_one_page_listings_without_a_pagination_block_are_reported(small: Site) -> None:  # noqa: F811
    with SampleSiteServer(small, variants={NO_PAGINATION_ONE_PAGE}, transient_faults=False) as srv:
        run = probe(srv.base_url)
    assert run.returncode == 0, run.stderr
    assert "show a pagination block: no" in run.stdout, run.stdout


@pytest.mark.parametrize(("url", "code"), [("not-a-url", 2), ("ftp://example.org", 2), ("http://127.0.0.1:9", 1)])
def test_a_bad_or_unreachable_site_is_one_line(url: str, code: int) -> None:
    run = probe(url)
    assert run.returncode == code, run
    assert "Traceback" not in run.stderr and run.stdout == ""
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("bodoge: error: "), run.stderr
