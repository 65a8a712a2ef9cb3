"""What the warehouse already knows, as an incremental night needs it.

Why the warehouse (not Scrapy's HTTP cache or JOBDIR): page ages, validators and the
frontier must change together with the rows they describe. Kept in the one DuckDB file
the crawl writes (one writer, transactional batches), a page counts as read only when
its rows were committed; a cache folder or a JOBDIR queue beside it could say "fetched"
for a page whose rows a kill threw away, and would also need its own locking and
cleaning. Scrapy's RFC 2616 cache policy would, besides, answer pages without a
Cache-Control from its heuristic freshness instead of asking the server. So the
conditional requests are built here from `raw.pages`, the frontier is
`raw.crawl_frontier`, and the budget is Scrapy's own `CLOSESPIDER_PAGECOUNT`.

The spider gets a cursor on the crawl's own warehouse connection (the item pipeline
opens it) and reads through this class only; every write goes through items.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from warehouse.privacy.public import COMPLETE_LISTINGS


@dataclass(frozen=True, slots=True)
class KnownMember:
    """A member's collection as the warehouse holds it."""

    n_entries: int
    newest: str | None
    complete: bool


@dataclass(frozen=True, slots=True)
class PageState:
    """A game or post page's validators and age."""

    url: str
    etag: str | None
    last_modified: str | None
    body_sha256: str | None
    http_status: int
    fetched_at: datetime


class KnownState:
    """Read-only views of the warehouse for one crawl (loaded once, entries on demand)."""

    def __init__(self, con: Any, *, max_age_days: float, now: datetime | None = None) -> None:
        self.con = con
        self.max_age_days = max_age_days
        self.now = now or datetime.now(timezone.utc)
        self.complete_crawl = bool(con.execute(
            "SELECT count(*) FROM raw.crawl_runs WHERE status = 'finished' "
            "AND coalesce(json_extract_string(stats, '$.\"bodoge/complete\"'), "
            "    CASE WHEN json_extract_string(stats, '$.finish_reason') = 'finished' THEN 'true' END) = 'true'"
        ).fetchone()[0])
        self.summaries = {r[0]: tuple(r[1:]) for r in con.execute(
            "SELECT game_id, name_ja, name_en, min_players, max_players, min_minutes, max_minutes, min_age, year "
            "FROM raw.game_summaries").fetchall()}
        self.games = {r[0] for r in con.execute("SELECT game_id FROM raw.games").fetchall()}
        self.posts = {r[0] for r in con.execute("SELECT post_id FROM raw.posts").fetchall()}
        self.pages = {(r[0], r[1]): PageState(*r[2:]) for r in con.execute(
            "SELECT kind, key, url, etag, last_modified, body_sha256, http_status, fetched_at FROM raw.pages"
        ).fetchall()}
        self.members = {r[0]: KnownMember(int(r[1] or 0), r[2], bool(r[3])) for r in con.execute(
            "SELECT l.key, e.n, e.newest, list_contains(?, l.status) FROM raw.listing_crawls l "
            "LEFT JOIN (SELECT user_id, count(*) AS n, max(updated_at) AS newest FROM raw.collection_entries "
            "           GROUP BY user_id) e ON e.user_id = l.key WHERE l.listing = 'collection'",
            [list(COMPLETE_LISTINGS)]).fetchall()}
        self.named = {r[0] for r in con.execute("SELECT user_id FROM raw.members").fetchall()}

    def entries(self, user_id: str) -> dict[str, str | None]:
        """The member's known cards: game_id -> updated_at."""
        return dict(self.con.execute(
            "SELECT game_id, updated_at FROM raw.collection_entries WHERE user_id = ?", [user_id]).fetchall())

    def knows_member(self, user_id: str) -> bool:
        """Whether any row names the member (so a private turn has something to erase)."""
        return user_id in self.members or user_id in self.named

    def frontier(self) -> list[tuple[str, str, str, str]]:
        """(kind, key, url, reason) left by earlier nights, oldest first."""
        return [tuple(r) for r in self.con.execute(
            "SELECT kind, key, url, reason FROM raw.crawl_frontier ORDER BY fetched_at, kind, key").fetchall()]

    def due(self) -> list[tuple[str, str, str]]:
        """(kind, key, url) of the pages the rolling refresh revalidates tonight, oldest first.

        Every page older than max-age minus a day must go (or it would be too old by the
        next night); on top, a night takes its share (1/max-age of all pages) among the
        oldest that passed half the max age, so a full crawl's pages spread over nights
        instead of all falling due the same night. Gone pages (404) are not revalidated.
        """
        live = sorted(((s.fetched_at, k) for k, s in self.pages.items() if s.http_status != 404),
                      key=lambda t: t[0])
        must = self.now - timedelta(days=max(self.max_age_days - 1, 0))
        half = self.now - timedelta(days=self.max_age_days / 2)
        share = math.ceil(len(live) / max(self.max_age_days, 1))
        picked = [k for t, k in live if _utc(t) <= must]
        picked += [k for t, k in live if must < _utc(t) <= half][: max(0, share - len(picked))]
        return [(k[0], k[1], self.pages[k].url) for k in picked]

    def oldest_age_days(self) -> float | None:
        """Age of the oldest live page (game, post) in days, None when there is none."""
        ages = [self.now - _utc(s.fetched_at) for s in self.pages.values() if s.http_status != 404]
        return round(max(ages).total_seconds() / 86400, 2) if ages else None


def _utc(t: datetime) -> datetime:
    return t if t.tzinfo else t.replace(tzinfo=timezone.utc)
