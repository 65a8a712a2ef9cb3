"""A listing that changes under the crawl ends `incomplete`; `bodoge parse` agrees with the crawl page by page.

Real crawls over HTTP of the sample site into a real warehouse. A site that changes
between two page reads is the sample site swapped for its next state right after it
served the page in question (`ChangingSite`): the crawler cannot ask for the next page
before it got this one, so the swap falls exactly between the two reads.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from samplesite import SampleSiteServer, generate_site, truth_frames
from samplesite.faults import TRUNCATED_REASON, cut_collections
from samplesite.model import Member, Site
from samplesite.pages.cafes import CAFE_GAMES_PAGE_SIZE
from samplesite.pages.members import COLLECTION_PAGE_SIZE
from samplesite.variants import NO_PAGINATION_ONE_PAGE
from tests.support.crawl_fixtures import crawl_and_build, recounted, with_card_moved_first, without_entries
from tests.support.night_checks import frame, trace_of
from tests.support.samplesite_fixtures import small  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
_CARD = "game_id, have, played, favorite, watching, rating, updated_at"


class ChangingSite(SampleSiteServer):
    """The sample site that turns into `after` as soon as it has served `trigger` (a path and query).

    Why: the server records a request before it answers it, so every request the crawler
    makes after receiving `trigger` sees `after`: a site changing between two page reads.
    """

    def __init__(self, before: Site, after: Site, trigger: str, **kwargs: Any) -> None:
        super().__init__(before, **kwargs)
        self.after, self.trigger = after, trigger

    def _record(self, method: str, target: str, status: int) -> None:
        super()._record(method, target, status)
        if method == "GET" and target == self.trigger:
            self.site = self.after


def _cards(warehouse: Path, user_id: str) -> set[tuple[Any, ...]]:
    return set(frame(warehouse, f"SELECT {_CARD} FROM raw.collection_entries WHERE user_id = ?", [user_id]).rows())


def _status(warehouse: Path, user_id: str) -> str | None:
    rows = frame(warehouse, "SELECT status FROM raw.listing_crawls WHERE listing = 'collection' AND key = ?",
                 [user_id])
    return rows["status"][0] if rows.height else None


def _truth_games(site: Site, user_id: str) -> set[str]:
    collections = truth_frames(site)["collections"]
    return set(collections.filter(collections["user_id"] == user_id)["game_id"])


def _scenario(site: Site, shape: str) -> tuple[Member, Site, str, dict[str, Any]]:
    """(member, the site after the change, the page after which it changes, crawl options)."""
    if shape == "a card jumps across the page boundary":  # rows still add up to 全N個: one read twice
        m = next(m for m in site.members if not m.private and COLLECTION_PAGE_SIZE + 2 < m.n_boardgames <= 40)
        after = with_card_moved_first(site, m.index, COLLECTION_PAGE_SIZE + 1)
        return m, after, m.collection_url, {"sections": ["members"], "users": [m.user_id]}
    if shape == "cards removed between page 1 and page 2":  # page 2 states a smaller 全N個
        m = next(m for m in site.members if not m.private and COLLECTION_PAGE_SIZE + 3 < m.n_boardgames <= 40)
        after = recounted(without_entries(site, m.index, 3))
        return m, after, m.collection_url, {"sections": ["members"], "users": [m.user_id]}
    # emptied after the directory counted it: the empty page states no total, the directory's count stands
    m = next(m for m in site.members[:50] if not m.private and 0 < m.n_boardgames < COLLECTION_PAGE_SIZE)
    return m, recounted(without_entries(site, m.index, m.n_boardgames)), "/friends", {"sections": ["members"]}


@pytest.mark.parametrize(("shape", "problem"), [
    ("a card jumps across the page boundary", "moved"),
    ("cards removed between page 1 and page 2", "moved"),
    ("a collection emptied between the directory and its page", "short_of_total"),
])
def test_a_listing_that_disagrees_with_its_total_is_incomplete_and_deletes_nothing(
        tmp_path: Path, shape: str, problem: str) -> None:
    site = generate_site(n_games=60, n_users=60, seed=5, faults=False)
    member, after, trigger, options = _scenario(site, shape)
    warehouse = tmp_path / "warehouse.duckdb"
    with SampleSiteServer(site, transient_faults=False) as server:
        crawl_and_build(server.base_url, warehouse, **options)
    held = _cards(warehouse, member.user_id)
    assert len(held) == member.n_boardgames and _status(warehouse, member.user_id) == "public"
    with ChangingSite(site, after, trigger, transient_faults=False) as server:
        changed = crawl_and_build(server.base_url, warehouse, **options)
    assert server.site is after, "the site never changed: the scenario did not happen"
    assert {card[0] for card in _cards(warehouse, member.user_id)} == {card[0] for card in held}  # none deleted
    assert _status(warehouse, member.user_id) == "incomplete"
    listings = {k: v for k, v in changed.stats.items() if k.startswith("bodoge/listings/")}
    assert listings == {f"bodoge/listings/{problem}": 1}
    with SampleSiteServer(after, transient_faults=False) as server:  # the next night reads it whole
        crawl_and_build(server.base_url, warehouse, **options)
    assert {card[0] for card in _cards(warehouse, member.user_id)} == _truth_games(after, member.user_id)
    assert _status(warehouse, member.user_id) == ("public" if after.members[member.index].n_boardgames else "empty")


# --- bodoge parse agrees with the crawl ----------------------------------------------


def _parse(url: str) -> subprocess.CompletedProcess[str]:
    """`bodoge parse URL` as a real process, as an operator runs it."""
    return subprocess.run([sys.executable, "-m", "bodoge.cli", "parse", url], cwd=ROOT, capture_output=True,
                          text=True, encoding="utf-8", timeout=120)


def _parsed(out: subprocess.CompletedProcess[str], url: str) -> tuple[set[tuple[Any, ...]], str | None]:
    """(the cards `bodoge parse` printed, the reason it refused the page with, if it did)."""
    if out.returncode != 0:
        assert out.stdout == "" and len(out.stderr.strip().splitlines()) == 1, out.stderr
        return set(), out.stderr.strip().split(f"{url}: ", 1)[1]
    assert out.stderr == "", out.stderr  # no note: the crawl would find nothing to object to
    items = [json.loads(line) for line in out.stdout.splitlines()]
    fields = _CARD.split(", ")
    return {tuple(item[f] for f in fields) for item in items if item["kind"] == "collection_entry"}, None


def test_bodoge_parse_gives_what_the_crawl_took_or_its_quarantine_reason(
        tmp_path: Path, small: Site) -> None:  # noqa: F811
    public = [m for m in small.members if not m.private and m.index not in cut_collections(small)]
    members = {
        "one page, no pagination block": next(m for m in public if 0 < m.n_boardgames < COLLECTION_PAGE_SIZE),
        "cut": small.members[next(iter(cut_collections(small)))],
        "login page": next(m for m in small.members if m.private),
        "empty": next(m for m in public if m.n_boardgames == 0),
    }
    cafe = next(c for c in small.cafes if len(c.game_indices) % CAFE_GAMES_PAGE_SIZE)  # a short last page
    warehouse = tmp_path / "warehouse.duckdb"
    with SampleSiteServer(small, variants={NO_PAGINATION_ONE_PAGE}, transient_faults=False) as server:
        base = server.base_url
        crawl_and_build(base, warehouse, sections=["members", "cafes"], users=[m.user_id for m in members.values()])
        runs = {shape: _parse(f"{base}{m.collection_url}") for shape, m in members.items()}
        n_pages = -(-len(cafe.game_indices) // CAFE_GAMES_PAGE_SIZE)
        cafe_runs = [_parse(f"{base}{cafe.url}/games" + (f"?page={p}" if p > 1 else "")) for p in range(1, n_pages + 1)]
    quarantined = dict(frame(warehouse, "SELECT url, reason FROM raw.quarantine").rows())
    for shape, m in members.items():
        url = f"{base}{m.collection_url}"
        cards, reason = _parsed(runs[shape], url)
        assert cards == _cards(warehouse, m.user_id), shape
        crawl_reason = quarantined.get(url)
        assert (reason is None) == (crawl_reason is None), (shape, reason, crawl_reason)
        assert reason is None or reason.startswith(crawl_reason), (shape, reason, crawl_reason)
    assert quarantined == {f"{base}{members['cut'].collection_url}": TRUNCATED_REASON}
    assert _status(warehouse, members["one page, no pagination block"].user_id) == "public"
    assert _status(warehouse, members["empty"].user_id) == "empty"
    assert _status(warehouse, members["cut"].user_id) == "incomplete"
    assert trace_of(warehouse, [members["login page"].user_id]) == 0  # private: no trace, and parse printed nothing
    printed = [json.loads(line) for run in cafe_runs for line in run.stdout.splitlines()]
    assert all(run.returncode == 0 and run.stderr == "" for run in cafe_runs)
    took = frame(warehouse, "SELECT game_id, name_ja, name_en FROM raw.cafe_games WHERE space_slug = ?",
                 [cafe.slug])
    assert sorted((i["game_id"], i["name_ja"], i["name_en"]) for i in printed) == sorted(took.rows())
    assert len(printed) == len(cafe.game_indices)


def card(i: int) -> str:
    """One collection card as the site draws it (title, one status, update time)."""
    return (f'<div class="list--interests-item" data-updated-at="2026-10-{i % 28 + 1:02d}T21:14:03+09:00">'
            f'<a class="list--interests-item-title" href="/games/game-{i}">'
            f'<div class="list--interests-item-title-japanese">ゲーム{i}</div></a>'
            '<ul class="friend-interests"><li class="friend-interest have on">持ってる</li></ul></div>\n')


def collection_page(n_cards: int, *, total: int | None = None, nav: str = "") -> str:
    """A whole collection page: its total (if any), its cards, then `nav` (none by default)."""
    stated = f'<p class="friends-boardgames-total">全{total:,}個</p>\n' if total is not None else ""
    cards = "".join(card(i) for i in range(n_cards))
    return ('<!DOCTYPE html>\n<html lang="ja"><head><title>x</title></head><body>\n'
            f'<main id="friends-boardgames" data-friend-id="17406">\n{stated}'
            f'<div class="list--interests">\n{cards}</div>\n{nav}</main>\n</body>\n</html>\n')


def test_bodoge_parse_prints_the_rows_and_notes_the_disagreement_in_one_line(tmp_path: Path) -> None:
    saved = tmp_path / "collection.html"
    saved.write_text(collection_page(3, total=5), encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "bodoge.cli", "parse", str(saved)], cwd=ROOT, capture_output=True,
                         text=True, encoding="utf-8", timeout=120)
    assert out.returncode == 0 and len(out.stdout.splitlines()) == 3
    assert out.stderr.startswith("bodoge: note: ") and len(out.stderr.splitlines()) == 1
    assert "short_of_total" in out.stderr and "incomplete" in out.stderr
