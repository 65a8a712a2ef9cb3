"""Nights 1→2→3 of the sample site drawn without one signal at a time, or with a signal an
earlier night confirmed and tonight contradicts: each night still equals its truth.

Why: the incremental night skips what the site's signals show unchanged, and each of
those signals may be missing on the real site (samplesite.variants). Night 1 (full)
measures each signal; the next nights must use the fallback for the one the site does
not show (directory update times, the private marker, validators: unchanged pages told
by their body), record it in `raw.crawl_runs` and `raw.crawl_signals`, and land every
change exactly: every collection row, the members, and no trace of a member who turned
private. A signal confirmed earlier and contradicted tonight falls back at once.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from samplesite import SampleSiteServer
from samplesite import generate_site
from samplesite.model import Site
from samplesite.nights import site_on_night
from samplesite.variants import NO_DIRECTORY_UPDATES, NO_PRIVATE_MARKER, NO_VALIDATORS
from tests.support.crawl_fixtures import crawl_and_build
from tests.support.night_truth import assert_night_is_truth, frame, recorded, variant_nights

GAMES, MEMBERS = 150, 300


@pytest.fixture(scope="module")
def small_site() -> Site:
    """Half the multi-night site (150 games, 300 members) for the variants' and the marker's
    nights: every fallback and every night's truth is checked whole, in proportion to the site,
    and fifteen crawls of the larger site were most of this file's CPU. Its nights
    (`samplesite.nights`) still have members who join, edit their collections, turn private and
    public again, and a new game, as the larger one's. The contradicted-signal cases keep the
    larger site (`site`): only its night 2 has a collection the directory's count stops in."""
    return generate_site(n_games=GAMES, n_users=MEMBERS, seed=0)


def test_without_directory_update_times_every_known_member_gets_page_1(tmp_path: Path, small_site: Site) -> None:
    variant_nights(tmp_path, small_site, NO_DIRECTORY_UPDATES, signal="directory_updates", fallback="read-page-1")


def test_without_the_private_marker_every_known_member_gets_page_1(tmp_path: Path, small_site: Site) -> None:
    variant_nights(tmp_path, small_site, NO_PRIVATE_MARKER, signal="private_marker", fallback="read-page-1")


def test_without_validators_unchanged_pages_are_told_by_their_body(tmp_path: Path, small_site: Site) -> None:
    variant_nights(tmp_path, small_site, NO_VALIDATORS, signal="validators", fallback="body-sha256")


def test_a_marker_confirmed_earlier_and_contradicted_tonight_falls_back_at_once(tmp_path: Path, small_site: Site) -> None:
    """Night 1 shows 非公開 (confirmed); night 2 stops showing it: the first login page on an
    unmarked row takes the marker's trust away, and members skipped earlier that night get
    page 1 read after all, so those who turned private leave no trace."""
    warehouse = tmp_path / "warehouse.duckdb"
    with SampleSiteServer(small_site) as srv:
        crawl_and_build(srv.base_url, warehouse)
        night = site_on_night(small_site, 2)
        srv.site = night
        srv.variants = frozenset({NO_PRIVATE_MARKER})
        srv.faults.reset()
        result = crawl_and_build(srv.base_url, warehouse)
    runs, signals = recorded(warehouse, result.run_id)
    assert signals["private_marker"] == ("contradicted", "read-page-1"), signals
    assert runs["private_marker"] == "read-page-1"
    assert result.stats["bodoge/skipped/collections"] > 0  # skipped before the contradiction came...
    assert result.stats["bodoge/collections/rechecked"] == result.stats["bodoge/skipped/collections"]
    rechecked = frame(warehouse, "SELECT count(*) AS n FROM raw.crawl_frontier WHERE reason = 'recheck'")["n"][0]
    assert rechecked == 0  # ...and re-read the same night
    assert_night_is_truth(warehouse, night, 2)


@pytest.mark.parametrize(("signal", "fallback", "stops"), [
    ("sort_order", "read-whole", False),  # no stop at the first known card: changed collections read whole
    ("listing_totals", "directory-count-else-whole", True),  # the stop is checked against the directory's count
])
def test_a_signal_an_earlier_night_contradicted_gets_its_fallback(site: Site, nights_first_crawl,
                                                                  signal: str, fallback: str, stops: bool) -> None:
    """The sample site has no variant without 更新順 or stated totals: night 1's verdict is
    set to contradicted in raw.crawl_signals, as a site showing otherwise would have left it."""
    srv, warehouse, run_id = nights_first_crawl.server, nights_first_crawl.warehouse, nights_first_crawl.full.run_id
    with duckdb.connect(str(warehouse)) as con:
        con.execute("UPDATE raw.crawl_signals SET state = 'contradicted' WHERE run_id = ? AND signal = ?",
                    [run_id, signal])
    night = site_on_night(site, 2)
    srv.site = night
    result = crawl_and_build(srv.base_url, warehouse)
    runs, signals = recorded(warehouse, result.run_id)
    assert runs[signal] == fallback and signals[signal][1] == fallback, signals
    assert (result.stats.get("bodoge/collections/updated", 0) > 0) is stops, result.stats
    assert result.stats["bodoge/skipped/collections"] > 0.8 * len(site.members)  # the directory's signals still skip
    assert_night_is_truth(warehouse, night, 2)
