"""Helpers for end-to-end crawl tests: a served sample site crawled into a temp warehouse."""

from __future__ import annotations

import dataclasses
import shutil
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from samplesite import SampleSiteServer, generate_site
from samplesite.model import Collections, Site
from scrapers.crawl import CrawlResult, run_crawl
from warehouse.build import build_all
from warehouse.db import connect

#: The site the multi-night crawl tests share (the conftest's `site` fixture draws it).
NIGHTS_GAMES, NIGHTS_MEMBERS = 300, 600


def nights_site() -> Site:
    """The 300-game, 600-member sample site the multi-night crawl tests serve and change."""
    return generate_site(n_games=NIGHTS_GAMES, n_users=NIGHTS_MEMBERS, seed=0)


@dataclasses.dataclass
class FirstCrawl:
    """A copy of night 1's warehouse (the nights' site, crawled whole without faults and
    built), the live server it was crawled from, and that crawl's result."""

    warehouse: Path
    server: SampleSiteServer
    full: CrawlResult


@pytest.fixture(scope="session")
def nights_first_crawl_template(tmp_path_factory):
    """Night 1 of the nights' site without faults, crawled once per xdist worker, its server
    kept running for the whole session.

    Why: several multi-night tests begin with exactly this crawl (~10 s of CPU each) and only
    then do what they test. They continue a copy at the same address, because the crawl's
    signals and its volume floor are kept per base URL.
    """
    site = nights_site()  # the same site as the conftest's `site`
    warehouse = tmp_path_factory.mktemp("nights-first-crawl") / "warehouse.duckdb"
    with SampleSiteServer(site, transient_faults=False) as server:
        full = crawl_and_build(server.base_url, warehouse)
        yield FirstCrawl(warehouse=warehouse, server=server, full=full)


@pytest.fixture()
def nights_first_crawl(nights_first_crawl_template, tmp_path):
    """`FirstCrawl`: this test's own copy of the shared night 1, at `tmp_path / "warehouse.duckdb"`.
    The test may move `server.site` on (to night 2, …); it is put back after it."""
    first = nights_first_crawl_template
    server, site = first.server, first.server.site
    warehouse = tmp_path / "warehouse.duckdb"
    shutil.copyfile(first.warehouse, warehouse)
    server.requests.clear()
    try:
        yield dataclasses.replace(first, warehouse=warehouse)
    finally:
        server.site = site
        server.requests.clear()


def crawl_and_build(base_url: str, warehouse: Path, **kwargs) -> CrawlResult:
    """A real crawl over HTTP into `warehouse`, then the marts."""
    result = run_crawl(base_url=base_url, warehouse=warehouse, progress=None, **kwargs)
    with connect(warehouse) as con:
        build_all(con)
    return result


def without_entries(site: Site, member_index: int, n_removed: int) -> Site:
    """The same site after a member removed their `n_removed` most recent collection entries."""
    c = site.collections
    lo = int(c.offsets[member_index])
    keep = np.ones(len(c), dtype=bool)
    keep[lo:lo + n_removed] = False
    offsets = c.offsets.copy()
    offsets[member_index + 1:] -= n_removed
    columns = {f.name: getattr(c, f.name)[keep] for f in dataclasses.fields(Collections) if f.name != "offsets"}
    return dataclasses.replace(site, collections=Collections(offsets=offsets, **columns))


def with_card_moved_first(site: Site, member_index: int, position: int) -> Site:
    """The same site after a member edited the card at `position`: it jumps to the front (更新順), newest."""
    c = site.collections
    lo, hi = int(c.offsets[member_index]), int(c.offsets[member_index + 1])
    order = np.arange(len(c))
    order[lo:hi] = [lo + position, *(i for i in range(lo, hi) if i != lo + position)]
    columns = {f.name: getattr(c, f.name)[order] for f in dataclasses.fields(Collections) if f.name != "offsets"}
    newest = datetime.fromisoformat(str(c.updated_at[lo])) + timedelta(minutes=1)
    columns["updated_at"][lo] = newest.strftime("%Y-%m-%dT%H:%M:%S%z")[:-2] + ":00"
    return dataclasses.replace(site, collections=Collections(offsets=c.offsets.copy(), **columns))


def recounted(site: Site) -> Site:
    """The site with every member's directory count (マイボードゲーム N) equal to their collection's size."""
    sizes = np.diff(site.collections.offsets)
    members = [m if m.n_boardgames == sizes[m.index] else dataclasses.replace(m, n_boardgames=int(sizes[m.index]))
               for m in site.members]
    return dataclasses.replace(site, members=members)
