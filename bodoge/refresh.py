"""`bodoge refresh USER_ID [USER_ID …]`: a few members' lists now, not at 03:00.

Why: a member who changes their collection at 21:00 would keep seeing the night's list
(the new game in it, the old order and reasons) until the next night. Refreshing them is
the night's own work, for them alone:

1. **Crawl** only their collection pages (the night's crawler, robots.txt, AutoThrottle,
   conditional requests: `bodoge crawl --users … --sections members`).
2. **Rebuild** the marts from raw (`warehouse.build.build_all`, as `bodoge build`).
3. **Re-rank** each of them with the published night's saved champion through the
   night's own engine (`models.discovery.foldin.FoldIn`, what the HTTP API folds in
   with): discovery (a welcome list where the model has nothing personal), the watch-list
   shelf and play next, with new order and reasons, from their rows in the warehouse.
4. **Publish**: their rows replace theirs in the warehouse's marts, and the published
   night is written again and swapped in whole (`warehouse.release.publish`), keeping the
   night's ids, so a reader sees the night before or after, never half.
5. **Deliver** a delta bundle for the site (`warehouse.release.delta`): their three lines,
   validated against the bundle's own schemas; `exports/LATEST` still names the whole
   bundle the delta amends.

All under the nightly lock: a refresh beside a running night says so in one line and
changes nothing. A member unknown or private (now or found so by the crawl) gets the
one answer `bodoge recommend` gives both, and nothing is written for them.
"""

from __future__ import annotations

import logging
import time
from functools import partial
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported where used: every `bodoge` command imports this module for its parser
    import polars as pl

log = logging.getLogger("bodoge.refresh")

class RefreshError(ValueError):
    """A refresh that cannot run (one line; nothing written)."""


class NoSuchMember(RefreshError):
    """An unknown or private member: the same words for both."""


@dataclass
class Refreshed:
    """What a refresh did: the members refreshed, the delta bundle and the seconds per stage."""

    users: list[str]
    delta: Path | None  # None: nobody left to refresh (all found private)
    delta_id: str | None
    seconds: dict[str, float] = field(default_factory=dict)
    dropped: list[str] = field(default_factory=list)  # found private by the crawl: erased, no list


def refresh(settings: Any, users: list[str], *, say: Any = print) -> Refreshed:
    """Refresh `users` (distinct, public members of the published night); `say` gets a line per stage."""
    from core.config import require_base_url
    from ops.lock import try_acquire
    from scrapers.crawl import CrawlError, run_crawl
    from warehouse.build import build_all, open_crawled
    from warehouse.privacy.public import public_users

    users = list(dict.fromkeys(u.strip() for u in users if u.strip()))
    if not users:
        raise RefreshError("name at least one member to refresh")
    base_url = require_base_url(settings.base_url)
    paths = settings.paths
    if not (paths.data_dir / "published.duckdb").is_file():
        raise RefreshError(f"no published night in {paths.data_dir}: run `bodoge run` first")
    lock = try_acquire(paths.data_dir)
    if lock is None:
        raise RefreshError("a night is running: it refreshes every member; nothing was refreshed")
    seconds: dict[str, float] = {}
    try:
        with open_crawled(paths.warehouse) as con:
            public = public_users(con)
        unknown = [u for u in users if u not in public]
        if unknown:
            raise NoSuchMember(f"no public member with id {unknown[0]!r}")
        tick = time.perf_counter()
        try:
            pages = run_crawl(base_url=base_url, warehouse=paths.warehouse, sections=["members"], users=users,
                              max_pages=settings.max_pages, max_age_days=settings.max_age_days, tmp_dir=paths.tmp,
                              data_dir=paths.data_dir).pages
        except CrawlError:
            with open_crawled(paths.warehouse) as con:
                if set(users) & public_users(con):
                    raise
            pages = None  # every member was found private: the crawl erased them, and wrote nothing else
        seconds["crawl"] = time.perf_counter() - tick
        read = f"{pages:,} page(s)" if pages is not None else "the pages (every member found private)"
        say(f"refresh: crawled {read} of {len(users)} member(s) in {seconds['crawl']:.1f}s")
        tick = time.perf_counter()
        with open_crawled(paths.warehouse) as con:
            build_all(con)
            seconds["build"] = time.perf_counter() - tick
            say(f"refresh: rebuilt the marts in {seconds['build']:.1f}s")
            still = public_users(con)
            kept = [u for u in users if u in still]
            dropped = [u for u in users if u not in still]
            if dropped:  # found private: the crawl cut the published night; the warehouse's lists go too
                from warehouse.release.publish import drop_members

                drop_members(con, dropped)
                say(f"refresh: {len(dropped)} member(s) found private: erased")
            if not kept:
                return Refreshed(users=[], delta=None, delta_id=None, seconds=seconds, dropped=dropped)
            tick = time.perf_counter()
            night = _published(paths)
            lists = _ranked(con, night["model_dir"], kept)
            _replace_rows(con, kept, lists)
            seconds["rank"] = time.perf_counter() - tick
            say(f"refresh: re-ranked {len(kept)} member(s) with the night's champion in {seconds['rank']:.1f}s")
            tick = time.perf_counter()
            delta = _publish(con, paths, night, kept)
            seconds["publish"] = time.perf_counter() - tick
    finally:
        lock.release()
    say(f"refresh: published, and the delta bundle {delta.path} in {seconds['publish']:.1f}s")
    return Refreshed(users=kept, delta=delta.path, delta_id=delta.delta_id, seconds=seconds, dropped=dropped)


def _published(paths: Any) -> dict[str, Any]:
    """What a refresh keeps of the published night: its publication row (ids, checks) and the
    saved model its lists came from (`model_dir`), read once."""
    import duckdb

    from warehouse.release.publish import publication
    from warehouse.release.served import night_model

    with duckdb.connect(str(paths.data_dir / "published.duckdb"), read_only=True) as con:
        row = publication(con) or {}
        row["model_dir"] = Path(night_model(con, paths.data_dir, fallback=paths.champion))
    return row


def _ranked(con: Any, model_dir: Path, users: list[str]) -> dict[str, pl.DataFrame]:
    """Each list kind's rows for these members, ranked by the published night's model."""
    import polars as pl

    from models.discovery.foldin import MODES, FoldIn
    from models.discovery.members import normalise_marked
    from warehouse.bgg_training import member_rows
    from warehouse.views import post_games

    if not (model_dir / "discovery.json").is_file():
        raise RefreshError("the published night has no saved model to rank with (a privacy cut removed it since "
                           "the night): the next night ranks these members; their collections are crawled")
    fold = FoldIn.load(model_dir)
    found: dict[str, list[pl.DataFrame]] = {mode: [] for mode in MODES}
    for user in users:
        rows = normalise_marked(member_rows(con, user), source=f"member {user}")
        for mode in found:
            hints = partial(post_games, con, user) if mode == "discovery" else None  # read for a welcome list only
            ranked = fold.rank_rows(user, rows, mode, hints=hints)
            found[mode].append(ranked)
    return {mode: pl.concat(frames, how="diagonal_relaxed") if frames else pl.DataFrame() for mode, frames in found.items()}


def _replace_rows(con: Any, users: list[str], lists: dict[str, pl.DataFrame]) -> None:
    """These members' rows of the three marts replaced by `lists`, in one transaction; the
    run and night ids stay the night's (the rows amend its bundle), `generated_at` is now."""
    import polars as pl

    from models.discovery.foldin import SHELF_MODES

    now = datetime.now(timezone.utc)
    con.execute("BEGIN")
    try:
        night = con.execute("SELECT any_value(model), any_value(run_id), any_value(night_id) "
                            "FROM marts.recommendations").fetchall()[0]
        discovery = lists["discovery"]
        if discovery.height:
            discovery = discovery.with_columns(pl.lit(night[0]).alias("model"), pl.lit(night[1]).alias("run_id"),
                                               pl.lit(now).alias("generated_at"), pl.lit(night[2]).alias("night_id"))
        _swap(con, "recommendations", users, discovery)
        for mode, kind in SHELF_MODES.items():
            mart, shelf = kind.table, lists[mode]
            if shelf.height:
                run = con.execute(f"SELECT any_value(run_id) FROM marts.{mart}").fetchall()[0][0] or night[1]
                shelf = shelf.with_columns(pl.lit(run).cast(pl.String).alias("run_id"))
            _swap(con, mart, users, shelf)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def _swap(con: Any, mart: str, users: list[str], rows: pl.DataFrame) -> None:
    columns = [c for (c,) in con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = 'marts' AND table_name = ? "
        "AND table_catalog = current_database() ORDER BY ordinal_position", [mart]).fetchall()]
    if not columns:
        return
    con.execute(f"DELETE FROM marts.{mart} WHERE list_contains(?, user_id)", [users])
    if rows.height:
        fresh = rows.select([c for c in columns if c in rows.columns]).to_arrow()  # noqa: F841 - read by DuckDB
        con.execute(f"INSERT INTO marts.{mart} BY NAME SELECT * FROM fresh")


def _publish(con: Any, paths: Any, night: dict[str, Any], users: list[str]) -> Any:
    """The published night written again from the warehouse (the night's ids and checks kept,
    `night` as `_published` read it), swapped in whole; then the delta bundle of `users`."""
    import json

    from warehouse.release.delta import prune_deltas, write_delta
    from warehouse.release.publish import publish_snapshot

    run_id, bundle, night_id, checks = (night.get(k) for k in ("run_id", "export_run_id", "night_id", "checks"))
    publish_snapshot(con, paths.data_dir, run_id=run_id or "refresh", export_run_id=bundle, night_id=night_id,
                     checks=json.loads(checks) if isinstance(checks, str) else checks)
    exports = paths.data_dir / "exports"
    prune_deltas(exports, base_run_id=bundle)
    return write_delta(con, exports, users=users, base_run_id=bundle, night_id=night_id)


def register_refresh(sub: Any) -> None:
    from bodoge.args import add_data_dir, setting_flag

    p = sub.add_parser("refresh", help="refresh these members' lists now: crawl their collections, re-rank them "
                       "with the night's champion, publish, and write a delta bundle (docs/recommenders.md)")
    p.add_argument("user_ids", nargs="+", metavar="USER_ID", help="the members to refresh")
    setting_flag(p, "base_url")
    add_data_dir(p, warehouse=False)
    p.set_defaults(handler=cmd_refresh)


def cmd_refresh(args: Any) -> int:
    """Exit 0: refreshed and published; 2: an unknown or private member, a bad flag, a night
    running (one line, nothing written); 1: the crawl failed (one line, nothing published)."""
    from core.settings import Settings
    from ops.errors import fail
    from scrapers.crawl import CrawlError

    settings = Settings.load(args)
    try:
        done = refresh(settings, args.user_ids)
    except CrawlError as exc:
        return fail(f"refresh: {exc}; nothing was published", 1)
    for user in done.dropped:
        print(f"refresh: {user} is private now: erased, no list")
    total = sum(done.seconds.values())
    if done.delta is None:
        print(f"refreshed nobody in {total:.1f}s: every member named is private now")
    else:
        print(f"refreshed {len(done.users)} member(s) in {total:.1f}s; delta bundle {done.delta}")
    return 0
