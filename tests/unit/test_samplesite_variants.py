"""The sample site drawn without one signal at a time: only that signal changes."""

from __future__ import annotations

import pytest

from samplesite import render
from samplesite.faults import cut_collections
from samplesite.model import Site
from samplesite.pages.members import collection_pages
from samplesite.variants import (
    NO_DIRECTORY_UPDATES,
    NO_PAGINATION_ONE_PAGE,
    NO_PRIVATE_MARKER,
    VARIANTS,
    apply,
    check,
)
from tests.support.samplesite_fixtures import small  # noqa: F401


def _drawn(site: Site, target: str, *variants: str) -> tuple[str, str]:
    plain = render(site, target)
    return plain.body.decode(), apply(site, target, plain, frozenset(variants)).body.decode()


def test_one_page_listings_lose_their_pagination_block_and_nothing_else(small: Site) -> None:
    one = next(m for m in small.members if not m.private and m.n_boardgames
               and collection_pages(small, m) == 1)
    many = next(m for m in small.members if not m.private and collection_pages(small, m) > 1
                and m.index not in cut_collections(small))
    plain, drawn = _drawn(small, f"/friends/{one.user_id}/boardgames", NO_PAGINATION_ONE_PAGE)
    assert '<nav class="pagination">' in plain and '<nav class="pagination">' not in drawn
    assert drawn.count("list--interests-item\"") == plain.count("list--interests-item\"")
    assert drawn.rstrip().endswith("</html>")
    plain, drawn = _drawn(small, f"/friends/{many.user_id}/boardgames", NO_PAGINATION_ONE_PAGE)
    assert plain == drawn  # a listing of several pages keeps its block on every page


def test_directory_variants_remove_update_times_and_the_private_marker(small: Site) -> None:
    plain, drawn = _drawn(small, "/friends", NO_DIRECTORY_UPDATES)
    assert "data-updated-at" in plain and "data-updated-at" not in drawn
    private = [m for m in small.members[:50] if m.private]
    assert private, "the first directory page of the small site has a private member"
    plain, drawn = _drawn(small, "/friends", NO_PRIVATE_MARKER)
    assert "非公開" in plain and "非公開" not in drawn and "friends-list-private" not in drawn
    for m in private:
        assert f'<a href="/friends/{m.user_id}">' in drawn
    assert plain.count("friends-list-item") == drawn.count("friends-list-item")


def test_unknown_variant_is_refused_by_name() -> None:
    assert check(list(VARIANTS)) == frozenset(VARIANTS)
    with pytest.raises(ValueError, match="no-such"):
        check(["no-such"])
