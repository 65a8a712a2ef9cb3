"""Helpers for end-to-end crawl tests: a served sample site crawled into a temp warehouse."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from samplesite.model import Collections, Site
from scrapers.crawl import CrawlResult, run_crawl
from warehouse.build import build_all
from warehouse.db import connect


def crawl_and_build(base_url: str, warehouse: Path, **kwargs) -> CrawlResult:
    """A real crawl over HTTP into `warehouse`, then the marts."""
    result = run_crawl(base_url=base_url, warehouse=warehouse, progress=None, **kwargs)
    con = connect(warehouse)
    try:
        build_all(con)
    finally:
        con.close()
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
