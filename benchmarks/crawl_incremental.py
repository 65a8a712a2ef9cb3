"""An incremental night against a full crawl of the same night, and the real site projected.

Run: ``uv run python benchmarks/crawl_incremental.py [--games 2000] [--users 5000] [--quick]``
(``--quick`` is 300 games / 600 members). Prints one JSON object.

What it does: generates the sample site, crawls night 1 in full into a warehouse, copies
that warehouse, then crawls night 2 (about 1% of the members changed, see
samplesite.nights) twice: incrementally into the first copy and with ``full=True`` into
the second. Both are real crawls over HTTP (transient faults on). It reports pages and
wall time of each, whether the incremental warehouse equals night 2's truth
(``rows_differ``: collection rows missing or extra, for every member whose pages could be
read; members whose page 1 is cut that night must keep night 1's rows:
``unreadable_rows_differ_from_previous_night``), and the pages the incremental night spent
per changed member.

The projection for the real site (25,000 games, 100,000 members, one request a second)
scales each kind of page the full crawl fetched by games or by members, and builds an
incremental night from what every night reads whole (directory, catalogue, cafes), the
changed members (1%) times the measured pages per changed member, new games, and, at
steady state, the rolling refresh: each game and post page revalidated once per
``max_age_days`` (7) by a conditional request. Night 2 itself has no page due yet.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import polars as pl  # noqa: E402

from benchmarks.site_size import site_size  # noqa: E402
from core.settings import default  # noqa: E402
from samplesite.faults import cut_collections  # noqa: E402
from samplesite.generator import generate_site  # noqa: E402
from samplesite.nights import site_on_night  # noqa: E402
from samplesite.server import SampleSiteServer  # noqa: E402
from samplesite.truth import truth_frames  # noqa: E402
from scrapers.crawl import run_crawl  # noqa: E402
from warehouse.db import connect  # noqa: E402

QUICK = (300, 600)
REAL_GAMES, REAL_MEMBERS = 25_000, 100_000
MAX_AGE_DAYS = default("max_age_days")  # the night's setting (core.settings)
_KINDS = (("collection", re.compile(r"^/friends/\d+/boardgames")), ("directory", re.compile(r"^/friends(\?|$)")),
          ("cafe", re.compile(r"^/spaces")), ("post", re.compile(r"^/games/[^/?]+/(rules|reviews)/")),
          ("catalogue", re.compile(r"^/games(\?|$)")), ("game", re.compile(r"^/games/[^/?]+$")))
_PER_MEMBER = {"collection", "directory"}


def kind_of(target: str) -> str:
    path = target.split("?")[0] if not target.startswith(("/games?", "/friends?")) else target
    return next((k for k, rx in _KINDS if rx.search(path)), "other")


def _crawl(srv: SampleSiteServer, warehouse: Path, **kwargs: Any) -> dict[str, Any]:
    srv.requests.clear()
    srv.faults.reset()
    t0 = time.perf_counter()
    result = run_crawl(base_url=srv.base_url, warehouse=warehouse, progress=None, **kwargs)
    seconds = time.perf_counter() - t0
    kinds = Counter(kind_of(t) for _, t, _ in srv.requests if t != "/robots.txt")
    return {"pages": result.pages, "seconds": round(seconds, 1), "by_kind": dict(kinds),
            "not_modified": int(result.stats.get("bodoge/pages/not_modified", 0)),
            "skipped": sum(int(v) for k, v in result.stats.items() if k.startswith("bodoge/skipped/")),
            "mode": result.stats.get("bodoge/mode")}


def _rows_differ(warehouse: Path, truth: pl.DataFrame, *, skip: AbstractSet[str] = frozenset()) -> int:
    """Collection rows missing or extra against `truth`, members in `skip` left out."""
    with connect(warehouse, read_only=True) as con:
        got = con.sql("SELECT user_id, game_id, have, played, favorite, watching, rating, updated_at "
                      "FROM raw.collection_entries").pl()
    want = truth.with_columns(pl.col("rating").fill_null(0)).filter(~pl.col("user_id").is_in(list(skip)))
    got = got.with_columns(pl.col("rating").cast(pl.Int64).fill_null(0)).filter(~pl.col("user_id").is_in(list(skip)))
    cols = want.columns
    return want.join(got, on=cols, how="anti").height + got.select(cols).join(want, on=cols, how="anti").height


def _changed_members(before: pl.DataFrame, after: pl.DataFrame, n1, n2) -> int:
    before, after = (f.with_columns(pl.col("rating").fill_null(0)) for f in (before, after))
    cols = before.columns
    moved = pl.concat([after.join(before, on=cols, how="anti"), before.join(after, on=cols, how="anti")])
    privacy = {m.user_id for m in n2.members if m.index < len(n1.members) and m.private != n1.members[m.index].private}
    new = {m.user_id for m in n2.members[len(n1.members):]}
    return len(set(moved["user_id"].to_list()) | privacy | new)


def project(full: dict[str, Any], inc: dict[str, Any], *, games: int, users: int, changed: int,
            posts: int) -> dict[str, Any]:
    """Pages and hours at one request a second on the real site (see the module docstring)."""
    def scale(kind: str, n: int) -> float:
        return n * (REAL_MEMBERS / users if kind in _PER_MEMBER else REAL_GAMES / games)

    full_pages = sum(scale(k, n) for k, n in full["by_kind"].items())
    per_changed = inc["by_kind"].get("collection", 0) / max(changed, 1)
    nightly = {k: scale(k, full["by_kind"].get(k, 0)) for k in ("directory", "catalogue", "cafe")}
    changed_pages = 0.01 * REAL_MEMBERS * per_changed
    game_pages = scale("game", inc["by_kind"].get("game", 0))  # new, changed, unlisted, retried
    rolling = (REAL_GAMES + posts * REAL_GAMES / games) / MAX_AGE_DAYS
    night2 = sum(nightly.values()) + changed_pages + game_pages
    steady = night2 + rolling
    return {
        "full_pages": round(full_pages), "full_hours": round(full_pages / 3600, 1),
        "pages_per_changed_member": round(per_changed, 2),
        "incremental_night2_pages": round(night2), "incremental_night2_hours": round(night2 / 3600, 2),
        "incremental_steady_pages": round(steady), "incremental_steady_hours": round(steady / 3600, 2),
        "steady_breakdown": {**{k: round(v) for k, v in nightly.items()}, "changed_members": round(changed_pages),
                             "game_pages": round(game_pages), "rolling_refresh": round(rolling)},
    }


def main(argv: list[str] | None = None) -> int:
    games, users, seed = site_size(argv, description=__doc__.splitlines()[0], quick=QUICK)
    site = generate_site(n_games=games, n_users=users, seed=seed)
    night2 = site_on_night(site, 2)
    with tempfile.TemporaryDirectory(prefix="bodoge-bench-") as tmp, SampleSiteServer(site) as srv:
        inc_wh, full_wh = Path(tmp) / "inc" / "warehouse.duckdb", Path(tmp) / "full" / "warehouse.duckdb"
        first = _crawl(srv, inc_wh)
        full_wh.parent.mkdir(parents=True)
        shutil.copy(inc_wh, full_wh)
        srv.site = night2
        inc = _crawl(srv, inc_wh)
        full = _crawl(srv, full_wh, full=True)
        truth1, truth2 = truth_frames(site)["collections"], truth_frames(night2)["collections"]
        # A member whose page 1 is cut tonight cannot be read: the truth leaves them out, and
        # the warehouse must keep what night 1 showed of them.
        unreadable = {night2.members[i].user_id for i in cut_collections(night2)}
        differ = _rows_differ(inc_wh, truth2, skip=unreadable)
        kept = _rows_differ(inc_wh, truth1.filter(pl.col("user_id").is_in(list(unreadable))),
                            skip={m.user_id for m in night2.members} - unreadable)
    changed = _changed_members(truth1, truth2, site, night2)
    out = {
        "games": games, "users": users, "seed": seed,
        "night1_full": first, "night2_full": full, "night2_incremental": inc,
        "share_of_full_pages": round(inc["pages"] / full["pages"], 4),
        "changed_members": changed, "rows_differ": differ,
        "unreadable_members": len(unreadable), "unreadable_rows_differ_from_previous_night": kept,
        "projection_real_site": project(full, inc, games=games, users=users, changed=changed,
                                        posts=len(site.posts)),
    }
    print(json.dumps(out, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
