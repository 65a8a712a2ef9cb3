"""The nightly's commands: `bodoge demo`, `run`, `crawl` and `build`.

Why a module of their own: these are the long-running, signal-aware commands an
operator or the schedule runs; the member-facing views and tools stay in `bodoge.cli`.
Each is a thin shell over `bodoge.jobs`, `scrapers.crawl` and `warehouse.build`.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bodoge.args import add_data_dir, comma_list, setting_flag
from ops.errors import fail


def _interrupted(exc: Any) -> int:
    """A night stopped by a signal: its one line, and the shell's exit code (128 + signal)."""
    print(f"bodoge: {exc}", file=sys.stderr)
    return 128 + exc.signum


def register_crawl(sub: Any) -> None:

    p = sub.add_parser("crawl", help="crawl a site into the warehouse's raw tables")
    setting_flag(p, "base_url")
    add_data_dir(p)
    p.add_argument("--sections", type=comma_list, default=["games", "posts", "members", "cafes"],
                   help="any of games,posts,members,cafes (default all)")
    p.add_argument("--users", type=comma_list, help="comma-separated member ids to crawl instead of the directory")
    setting_flag(p, "max_pages", help="stop after this many pages (a trial on the real site)")
    p.add_argument("--http-cache", action="store_true", help="cache responses under DATA_DIR/httpcache (development)")
    p.add_argument("--probe", action="store_true",
                   help="fetch a few dozen pages politely and print, per signal the crawl leans on, what the site "
                        "showed and which strategy a night will use (writes nothing)")
    add_crawl_options(p, budget=False)
    p.set_defaults(handler=cmd_crawl)


def cmd_probe(args: argparse.Namespace) -> int:
    """`bodoge crawl --probe`: exit 0 when probed, 1 with one line when the site cannot be (bad URL: 2)."""
    from core.config import require_base_url
    from scrapers.crawl_setup import is_local, validate_base_url
    from scrapers.probe import ProbeError, run_probe

    base_url = validate_base_url(require_base_url(args.base_url))  # CrawlError: one line, exit 2
    try:
        run_probe(base_url, out=sys.stdout, local=is_local(base_url))
    except ProbeError as exc:
        return fail(str(exc), 1)
    return 0


def cmd_crawl(args: argparse.Namespace) -> int:
    from core.config import require_base_url
    from core.settings import Settings
    from ops.signals import Interrupted, signals_raise
    from scrapers.crawl import run_crawl

    if args.probe:
        return cmd_probe(args)
    settings = Settings.load(args)  # the flags, then BODOGE_*, then the defaults
    base_url = require_base_url(settings.base_url)
    paths = settings.paths
    try:
        with signals_raise():  # SIGTERM/Ctrl-C: run_crawl stops its child, then we end with 143/130
            result = run_crawl(
                base_url=base_url,
                warehouse=paths.warehouse,
                sections=args.sections,
                users=args.users,
                max_pages=settings.max_pages,
                full=settings.full,
                max_age_days=settings.max_age_days,
                http_cache_dir=paths.http_cache if args.http_cache else None,
                tmp_dir=paths.tmp,
                data_dir=paths.data_dir,
            )
    except Interrupted as stop:
        return fail(f"crawl {stop}; the crawler was stopped first", stop.exit_code)
    written = ", ".join(f"{k} {v:,}" for k, v in sorted(result.written.items()))
    print(f"crawl {result.run_id}: {result.pages:,} pages into {paths.warehouse} ({written})")
    return 0


def register_build(sub: Any) -> None:
    p = sub.add_parser("build", help="rebuild staging and marts from the raw tables, run quality checks, publish")
    add_data_dir(p)
    setting_flag(p, "backup_dir")
    p.set_defaults(handler=cmd_build)


def cmd_build(args: argparse.Namespace) -> int:
    """Rebuild the marts from raw, under the nightly lock, after any pending migration.

    Why the lock and the migrations: a build writes the warehouse like a night does, so it
    must not run beside one, and an older warehouse must get the columns the marts' SQL
    reads (`warehouse.migrate`, after a backup: `warehouse.backup.migration`) before it is built.
    """
    from datetime import datetime, timezone

    from core.settings import Settings
    from ops.lock import try_acquire
    from warehouse.build import build_all, open_crawled
    from warehouse.db import WarehouseError
    from warehouse.backup.migration import migrate_safely
    from warehouse.release.publish import publish_snapshot
    from warehouse.release.release import released_ids
    from warehouse.quality import check_specs, run_checks

    settings = Settings.load(args, only=("data_dir", "warehouse", "backup_dir"))
    paths = settings.paths
    run_id = "build-" + datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    open_crawled(paths.warehouse).close()  # one line, and nothing written, if no crawl wrote it
    lock = try_acquire(paths.data_dir)
    if lock is None:
        raise WarehouseError("a night is running: it builds and publishes the marts itself")
    try:
        for step in migrate_safely(paths.warehouse, settings.backups, run_id=run_id):
            print(f"migrated: {step}")
        with open_crawled(paths.warehouse) as con:
            for name, n in build_all(con).items():
                print(f"marts.{name}: {n:,} rows")
            results = run_checks(con)
            for result in results:
                print(result.line())
            # Readers open the published night: a manual build is published like a night, with its checks.
            checks = [{"name": r.name, "asset": f"marts/{spec.table}", "passed": r.passed,
                       "severity": r.severity.upper(), "description": r.description}
                      for r, spec in zip(results, check_specs(), strict=True)]
            night_id, bundle, said = released_ids(con, paths.data_dir)  # agrees with exports/LATEST, or says not
            published = publish_snapshot(con, paths.data_dir, run_id=run_id, checks=checks, night_id=night_id,
                                         export_run_id=bundle)
    finally:
        lock.release()
    print(f"published {run_id} for readers: {published.path}, {said}")
    return 0


def register_run(sub: Any) -> None:
    p = sub.add_parser("run", help="the nightly job once: crawl → warehouse → models → recommendations → export")
    setting_flag(p, "base_url")
    add_data_dir(p, warehouse=False)
    setting_flag(p, "push_url", metavar="URL")
    setting_flag(p, "backup_dir")
    setting_flag(p, "alert_url", metavar="URL")
    add_crawl_options(p)
    p.set_defaults(handler=cmd_run)


def add_crawl_options(p: argparse.ArgumentParser, *, budget: bool = True) -> None:
    """--full, --max-pages, --max-age-days: how much of the site tonight's crawl reads."""
    setting_flag(p, "full")
    if budget:
        setting_flag(p, "max_pages")
    setting_flag(p, "max_age_days")


def cmd_run(args: argparse.Namespace) -> int:
    """The nightly job once. Exit 0: published (a bundle not delivered yet is a warning line);
    1: the night failed (one line, and the alert); 2: a malformed flag or setting, nothing ran;
    130/143: stopped by a signal."""
    from core.config import require_base_url
    from core.settings import Settings
    from bodoge.jobs import JobFailed, JobInterrupted, run_nightly
    from bodoge.summary import print_summary

    settings = Settings.load(args)  # the flags, then BODOGE_*, then the defaults: a bad one is one line
    require_base_url(settings.base_url)
    paths = settings.paths
    try:
        summary = run_nightly(settings)
    except JobInterrupted as exc:
        return _interrupted(exc)
    except JobFailed as exc:
        return fail(str(exc), 1)
    print_summary(paths, summary)
    return 0


def register_demo(sub: Any) -> None:
    from bodoge.demo import DEMO_SITE

    p = sub.add_parser("demo", help="generate and serve the sample site, run the whole nightly job on it")
    p.add_argument("--games", type=int, default=DEMO_SITE["games"],
                   help=f"games in the sample site (default {DEMO_SITE['games']})")
    p.add_argument("--users", type=int, default=DEMO_SITE["users"],
                   help=f"members in the sample site (default {DEMO_SITE['users']})")
    p.add_argument("--seed", type=int, default=DEMO_SITE["seed"])
    p.add_argument("--bgg", action="store_true", help="with a local BoardGameGeek replay as a second source (docs/bgg.md)")
    add_data_dir(p, warehouse=False)
    p.set_defaults(handler=cmd_demo)


def cmd_demo(args: argparse.Namespace) -> int:
    from core.settings import Settings
    from bodoge.demo import DEMO_SETTINGS, run_demo
    from bodoge.jobs import JobInterrupted
    from bodoge.summary import print_summary

    if args.games < 20 or args.users < 20:
        raise ValueError("the sample site needs at least 20 games and 20 members")
    settings = Settings.load(args, only=DEMO_SETTINGS)
    paths = settings.paths
    try:
        summary, info = run_demo(settings, n_games=args.games, n_users=args.users, seed=args.seed, bgg=args.bgg)
    except JobInterrupted as exc:
        return _interrupted(exc)
    print_summary(paths, summary, demo_seconds=info["seconds"])
    return 0


def register_serve(sub: Any) -> None:
    from bodoge.args import port_number

    p = sub.add_parser("serve", help="the Dagster daemon and web UI, so the 03:00 JST schedule runs by itself")
    setting_flag(p, "base_url")
    add_data_dir(p, warehouse=False)
    p.add_argument("--port", type=port_number, default=3000, help="the web UI's port (default 3000)")
    p.add_argument("--host", default="127.0.0.1", help="the web UI's listen address (default localhost only)")
    setting_flag(p, "alert_url", metavar="URL")
    p.set_defaults(handler=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    from core.config import require_base_url
    from core.settings import Settings
    from ops.signals import Interrupted, held_off, signals_raise
    from bodoge.serve import died, prepare, start, wait_until_ready
    from ops.children import stop_groups
    from pipelines.alerts import check_alert_url
    from scrapers.crawl_setup import validate_base_url

    settings = Settings.load(args)  # the flags, then BODOGE_* (a unit file's), then the defaults
    settings = settings.replace(
        base_url=validate_base_url(require_base_url(settings.base_url)),  # its format now; the site is asked nightly
        alert_url=check_alert_url(settings.alert_url))
    paths = settings.paths
    log_path, environment = prepare(settings)
    url = f"http://{'127.0.0.1' if args.host in ('0.0.0.0', '') else args.host}:{args.port}"
    processes: dict = {}
    run_dir = Path(tempfile.mkdtemp(prefix="bodoge-serve-"))  # the code server's socket: a short path
    try:
        with open(log_path, "ab") as log, signals_raise():
            start(paths, host=args.host, port=args.port, log=log, settings=environment, run_dir=run_dir,
                  processes=processes)
            wait_until_ready(url, processes)
            print(f"serve: Dagster UI on {url}, daemon running on {paths.data_dir / 'dagster_home'}; "
                  f"nightly_at_3am_jst fires at 03:00 Asia/Tokyo; log: {log_path}; Ctrl-C to stop", flush=True)
            while True:
                with held_off():  # a stop signal raises after the polls, never inside one
                    dead = died(processes)
                if dead:
                    raise RuntimeError(f"{dead}; all stopped (log: {log_path})")
                time.sleep(1.0)
    except Interrupted as stop:
        stop_groups(processes, signum=stop.signum)
        print(f"bodoge: serve {stop}; the daemon and the web UI are down", file=sys.stderr)
        return stop.exit_code
    except BaseException:
        stop_groups(processes)
        raise
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
