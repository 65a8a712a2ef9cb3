"""Ways the real site may draw what the sample site draws: each variant takes one signal away.

Why: the sample site's markup is ours, drawn from ../shared's samples; where the samples
are silent we reconstructed a signal the crawl now leans on. The real site may not show
it. Each variant serves the same site with one such signal removed (everything else
byte for byte the same), so a test can prove the crawl measures the signal, falls back to
the slower exact way when it is absent, and still ends every night equal to its truth.
The truth does not change with a variant: the site's data is the same, only its drawing.

Variants (any subset; `SampleSiteServer(variants=…)`, `bodoge site serve --variant V`):
- `no-pagination-one-page`: a listing of one page draws no `<nav class="pagination">` at
  all (Kaminari and will_paginate render nothing when there is one page);
- `no-directory-updates`: directory rows carry no `data-updated-at` (the newest card's
  update is not shown);
- `no-private-marker`: a private member's directory row looks like any other (their count
  and update time, no 非公開, no `friends-list-private` class): only the collection's login
  page tells;
- `no-validators`: no page carries ETag or Last-Modified, and conditional requests are
  answered in full (200).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from typing import TYPE_CHECKING

from samplesite.pages.layout import Response

if TYPE_CHECKING:
    from samplesite.model import Site

NO_PAGINATION_ONE_PAGE = "no-pagination-one-page"
NO_DIRECTORY_UPDATES = "no-directory-updates"
NO_PRIVATE_MARKER = "no-private-marker"
NO_VALIDATORS = "no-validators"
VARIANTS: tuple[str, ...] = (NO_PAGINATION_ONE_PAGE, NO_DIRECTORY_UPDATES, NO_PRIVATE_MARKER, NO_VALIDATORS)

#: A pagination block with no link in it: the only page of a one-page listing.
_LONE_PAGINATION = re.compile(
    r'[ \t]*<nav class="pagination">\s*<span class="page current">\d+</span>\s*</nav>\n?'
)
_ROW_UPDATED = re.compile(r'(<li class="friends-list-item[^"]*")\s+data-updated-at="[^"]*"')
_PRIVATE_ROW = re.compile(
    r'[ \t]*<li class="friends-list-item friends-list-private"><a href="/friends/(\d+)">.*?</li>\n'
)


def check(variants: frozenset[str] | set[str] | tuple[str, ...] | list[str]) -> frozenset[str]:
    """The variants as a frozenset; ValueError naming any unknown one."""
    chosen = frozenset(variants)
    unknown = sorted(chosen - set(VARIANTS))
    if unknown:
        raise ValueError(f"unknown sample-site variant {', '.join(unknown)} (known: {', '.join(VARIANTS)})")
    return chosen


def apply(site: Site, target: str, resp: Response, variants: frozenset[str]) -> Response:
    """The response `target` gets on a site drawn with `variants` (validators are the server's)."""
    if not variants or resp.status != 200 or not resp.content_type.startswith("text/html"):
        return resp
    text = resp.body.decode("utf-8")
    drawn = text
    path = urlsplit(target).path.rstrip("/") or "/"
    if NO_PAGINATION_ONE_PAGE in variants:
        drawn = _LONE_PAGINATION.sub("", drawn)
    if path == "/friends":
        if NO_PRIVATE_MARKER in variants:
            drawn = _PRIVATE_ROW.sub(lambda m: _public_looking_row(site, m.group(1)), drawn)
        if NO_DIRECTORY_UPDATES in variants:
            drawn = _ROW_UPDATED.sub(r"\1", drawn)
    if drawn == text:
        return resp
    return Response(resp.status, resp.content_type, drawn.encode("utf-8"), resp.headers)


def _public_looking_row(site: Site, user_id: str) -> str:
    """A private member's directory row drawn like a public one: count and update time."""
    from samplesite.pages.members import directory_row

    member = site.members[site.member_by_id[user_id]]
    return directory_row(site, member, show_private=False)
