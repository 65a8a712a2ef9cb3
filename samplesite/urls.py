"""Every URL a complete crawl of a sample site visits, in a stable order.

Why: benchmarks and tests need the site's URL space without crawling it (to count
pages, to find which URLs carry a transient fault, to time the server). The list is
derived from the same site object and page sizes the renderer uses.
"""

from __future__ import annotations

from collections.abc import Iterator

from core.statuses import STATUSES
from samplesite.model import Site
from samplesite.pages.cafes import CAFE_GAMES_PAGE_SIZE, SPACES_PAGE_SIZE
from samplesite.pages.games import CATALOGUE_PAGE_SIZE
from samplesite.pages.layout import n_pages
from samplesite.pages.members import MEMBERS_PAGE_SIZE, collection_pages


def iter_urls(site: Site, *, statuses: bool = False) -> Iterator[str]:
    """Catalogue, game, post, directory, profile, collection and cafe URLs.

    Collection URLs include the first page past the end (the empty marker a crawler
    stops on) and, for private members, page 1 (the login page). `statuses=True` adds
    the filtered /have, /played, /favorite, /watching listings.
    """
    yield "/robots.txt"
    for p in range(1, n_pages(len(site.games), CATALOGUE_PAGE_SIZE) + 1):
        yield f"/games?page={p}"
    for i in site.catalogue_order:
        g = site.games[i]
        yield g.url
        for pid in g.post_ids:
            yield site.posts[site.post_by_id[pid]].url
    for p in range(1, n_pages(len(site.members), MEMBERS_PAGE_SIZE) + 1):
        yield f"/friends?page={p}"
    for m in site.members:
        yield m.url
        for status in (None, *STATUSES) if statuses else (None,):
            base = f"{m.collection_url}/{status}" if status else m.collection_url
            n = 0 if m.private else collection_pages(site, m, status)
            for p in range(1, n + 2):
                yield f"{base}?page={p}"
    for p in range(1, n_pages(len(site.cafes), SPACES_PAGE_SIZE) + 1):
        yield f"/spaces?page={p}"
    for c in site.cafes:
        yield c.url
        for p in range(1, n_pages(len(c.game_indices), CAFE_GAMES_PAGE_SIZE) + 1):
            yield f"{c.url}/games?page={p}"
