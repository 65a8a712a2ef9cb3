"""A site that draws no pagination block on one-page listings, crawled night after night, against its truth.

Why: Kaminari and will_paginate draw nothing on a listing of one page. A crawler that
took a missing block for a cut page would quarantine every member with a short
collection every night and never hold their cards. Served so (`no-pagination-one-page`),
night 1 (full, into a fresh warehouse) and nights 2 and 3 (incremental) must each end
with every collection row equal to that night's truth, every listing agreeing with its
stated total, and no page quarantined as `truncated` but the site's planted cut pages.
"""

from __future__ import annotations

from pathlib import Path


from samplesite import SampleSiteServer, generate_site, permanent_faults
from samplesite.faults import TRUNCATED_REASON
from samplesite.model import Site
from samplesite.nights import site_on_night
from samplesite.pages.members import collection_pages
from samplesite.variants import NO_PAGINATION_ONE_PAGE
from tests.support.crawl_fixtures import crawl_and_build
from tests.support.night_checks import collections_differ, frame

G, U = 300, 600


def _planted_cuts(site: Site, base_url: str) -> set[str]:
    """The URLs the site cuts on purpose (`cut_collections`, `cut_games`, cut malformed games)."""
    return {f"{base_url}{url}" for url, reason in permanent_faults(site) if reason == TRUNCATED_REASON}


def test_one_page_listings_without_a_pagination_block_land_exactly_night_after_night(tmp_path: Path) -> None:
    site = generate_site(n_games=G, n_users=U, seed=0)
    one_page = {m.user_id for m in site.members if not m.private and m.n_boardgames
                and collection_pages(site, m) == 1}
    assert len(one_page) > U // 4  # most collections are short: the variant matters
    warehouse = tmp_path / "warehouse.duckdb"
    with SampleSiteServer(site, variants={NO_PAGINATION_ONE_PAGE}) as srv:
        planted = _planted_cuts(site, srv.base_url)
        for night in (1, 2, 3):
            if night > 1:
                srv.site = site_on_night(site, night)
                srv.faults.reset()
                planted |= _planted_cuts(srv.site, srv.base_url)
            result = crawl_and_build(srv.base_url, warehouse)
            assert result.stats["bodoge/mode"] == ("full" if night == 1 else "incremental")
            assert collections_differ(warehouse, srv.site) == 0, f"night {night}"
            off_total = {k: v for k, v in result.stats.items() if k.startswith("bodoge/listings/")}
            assert off_total == {}, f"night {night}: {off_total}"
            cut = set(frame(warehouse, "SELECT url FROM raw.quarantine WHERE reason = 'truncated'")["url"])
            assert cut <= planted, f"night {night}: {sorted(cut - planted)[:5]}"
            if night == 1:
                assert cut == planted and result.stats["bodoge/complete"] is True
                status = dict(frame(warehouse, "SELECT key, status FROM raw.listing_crawls "
                                               "WHERE listing = 'collection'").rows())
                assert {status[uid] for uid in one_page} == {"public"}
