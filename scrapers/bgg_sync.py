"""`bodoge bgg sync`: BoardGameGeek into the warehouse, politely and incrementally (the parent's side).

What a sync does, in order: load the links file into `raw.bgg_member_links` (a member no
longer listed loses their BGG rows); plan each linked BGG user's collection request (the
whole collection the first time and past the maximum age, since `modifiedsince` cannot
tell removals; otherwise only what changed since the last good read); run the spider in
a subprocess (`scrapers.bgg_child`); then match BGG things to site games
(`warehouse.bgg_links`) and rebuild the BGG marts.

The sync's settings (BGG's address, the pace, the warehouse) reach the child as every
setting crosses a process boundary, `Settings.to_env()`. The token is no setting (a
setting is written into resources, reprs and every child's environment): it is read here
(`BODOGE_BGG_TOKEN`, else the file `BODOGE_BGG_TOKEN_FILE`) and handed to this one child
in its environment only.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import duckdb

from core.ids import new_run_id
from core.settings import SECRET_VARIABLES, Settings, SettingError, default
from ops.errors import error_of, one_line
from scrapers.bgg_child import TOKEN_EXIT
from scrapers.bgg_store import now_utc, upsert

#: The environment variables that carry the token (never settings; see `read_token`).
TOKEN_VARIABLES = SECRET_VARIABLES
PREPARE_RETRIES = 5
PREPARE_DELAY_SECONDS = 5.0


class BggSyncError(Exception):
    """A sync that could not do its job, in one line (never holding the token)."""


class TokenError(BggSyncError):
    """No token configured, or BGG refused it (401)."""


def read_token(env: Mapping[str, str] | None = None) -> str:
    """The BGG application token: `BODOGE_BGG_TOKEN`, else the first line of `BODOGE_BGG_TOKEN_FILE`."""
    source: Mapping[str, str] = os.environ if env is None else env
    token = source.get("BODOGE_BGG_TOKEN", "").strip()
    if not token and source.get("BODOGE_BGG_TOKEN_FILE"):
        path = Path(source["BODOGE_BGG_TOKEN_FILE"])
        try:
            token = path.read_text(encoding="utf-8").strip().splitlines()[0].strip() if path.stat().st_size else ""
        except OSError as exc:
            raise TokenError(f"cannot read the BGG token file {path}: {exc.strerror or exc}") from None
    if not token:
        raise TokenError("no BoardGameGeek token: set BODOGE_BGG_TOKEN or BODOGE_BGG_TOKEN_FILE (see docs/bgg.md)")
    return token


def read_links(path: Path) -> list[tuple[str, str]]:
    """The site team's links file: CSV `user_id,bgg_user` (a header row), one member per line."""
    from warehouse.bgg_links import csv_rows

    try:
        rows = csv_rows(path, header=["user_id", "bgg_user"], what="links")
    except ValueError as exc:
        raise BggSyncError(str(exc)) from None
    links: dict[str, str] = {}
    for number, cells in rows:
        if len(cells) != 2 or not all(cells):
            raise BggSyncError(f"{path}:{number}: expected user_id,bgg_user")
        links[cells[0]] = cells[1]
    return sorted(links.items())


@dataclass(frozen=True, slots=True, kw_only=True)
class SyncResult:
    """What a sync did: its run id, each BGG user's outcome, things fetched, the linking report."""

    run_id: str
    outcomes: dict[str, str]
    things: int
    stats: dict[str, Any] = field(default_factory=dict)
    report: dict[str, Any] = field(default_factory=dict)


def plan_sync(con: duckdb.DuckDBPyConnection, *, links: list[tuple[str, str]], run_id: str,
              max_age_days: float, extra_things: list[int]) -> dict[str, Any]:
    """Load the links, forget unlinked BGG users, and decide each user's request."""
    stamp = {"run_id": run_id, "fetched_at": now_utc()}
    linked = sorted({bgg for _, bgg in links})
    con.execute("BEGIN TRANSACTION")
    try:
        con.execute("DELETE FROM raw.bgg_member_links")
        upsert(con, "bgg_member_links", [{"user_id": u, "bgg_user": b} | stamp for u, b in links])
        for table in ("bgg_collection_items", "bgg_collection_fetches"):
            con.execute(f"DELETE FROM raw.{table} WHERE NOT list_contains(?, bgg_user)", [linked])
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise
    state = {r[0]: (r[1], r[2]) for r in con.execute(
        "SELECT bgg_user, last_ok_at, last_full_at FROM raw.bgg_collection_fetches").fetchall()}
    full_before = now_utc() - timedelta(days=max_age_days)
    users = []
    for bgg_user in linked:
        last_ok, last_full = state.get(bgg_user, (None, None))
        since = None
        if last_ok is not None and last_full is not None and last_full >= full_before:
            since = (last_ok - timedelta(days=1)).strftime("%y-%m-%d")  # a day's overlap: BGG gives no zone
        users.append({"bgg_user": bgg_user, "modifiedsince": since})
    return {"users": users, "things": sorted(set(extra_things)), "max_age_days": max_age_days}


def run_bgg_sync(*, api_url: str, warehouse: Path, links_file: Path, token: str,
                 max_age_days: float = default("bgg_max_age_days"), delay: float = default("bgg_delay"),
                 prepare_retries: int = PREPARE_RETRIES, prepare_delay: float = PREPARE_DELAY_SECONDS,
                 backoff_base: float = 2.0, overrides_file: Path | None = None,
                 run_id: str | None = None) -> SyncResult:
    """Sync BGG into `warehouse`; raises TokenError or BggSyncError (one line) when it cannot.

    `max_age_days` is not checked here (0 forces whole reads, as tests do); the address and
    the pace are, by `core.settings`, since they cross to the child as settings.
    """
    from warehouse.bgg_links import build_bgg_marts, link_games, read_overrides

    try:
        child_settings = Settings(warehouse=warehouse, bgg_api_url=api_url, bgg_delay=delay)
    except SettingError as exc:
        raise BggSyncError(str(exc)) from None
    links = read_links(links_file)
    overrides = read_overrides(overrides_file) if overrides_file is not None else {}
    run_id = run_id or new_run_id()
    warehouse.parent.mkdir(parents=True, exist_ok=True)
    with duckdb.connect(str(warehouse)) as con:
        from warehouse.raw import ensure_raw_schema

        ensure_raw_schema(con)
        plan = plan_sync(con, links=links, run_id=run_id, max_age_days=max_age_days, extra_things=list(overrides))
    plan |= {"prepare_retries": prepare_retries, "prepare_delay": prepare_delay}
    with tempfile.TemporaryDirectory(prefix="bgg-sync-", dir=warehouse.parent) as tmp:
        plan_file, stats_file = Path(tmp) / "plan.json", Path(tmp) / "stats.json"
        plan_file.write_text(json.dumps(plan), encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if k not in TOKEN_VARIABLES} | child_settings.to_env()
        cmd = [sys.executable, "-m", "scrapers.bgg_child", "--run-id", run_id, "--plan-file", str(plan_file),
               "--stats-file", str(stats_file), "--backoff-base", str(backoff_base), "--parent-pid", str(os.getpid())]
        child = subprocess.run(cmd, env=env | {"BODOGE_BGG_TOKEN": token}, capture_output=True, text=True)
        stats = json.loads(stats_file.read_text(encoding="utf-8")) if stats_file.exists() else {}
    if child.returncode == TOKEN_EXIT:
        raise TokenError("BoardGameGeek refused the token (HTTP 401): check BODOGE_BGG_TOKEN (see docs/bgg.md)")
    if child.returncode != 0:
        lines = [ln for ln in child.stderr.replace(token, "***").splitlines() if ln.strip()]
        raise BggSyncError((error_of(lines[-1]) or lines[-1]) if lines else
                           f"the BGG sync process ended with status {child.returncode}")
    with duckdb.connect(str(warehouse)) as con:
        report = link_games(con, overrides=overrides, run_id=run_id)
        build_bgg_marts(con)
    return SyncResult(run_id=run_id, outcomes=dict(stats.get("bodoge/bgg/outcomes") or {}),
                      things=int(stats.get("bodoge/bgg/things") or 0), stats=stats, report=report)


@dataclass(frozen=True, slots=True, kw_only=True)
class NightOutcome:
    """What the night's BGG stage did: ok, skipped (not configured) or failed (reported, retried next night)."""

    status: str
    detail: str
    result: SyncResult | None = None


def night_sync(*, warehouse: Path, links_file: Path | str | None, api_url: str, overrides_file: Path | None = None,
               delay: float = default("bgg_delay"), max_age_days: float = default("bgg_max_age_days"),
               env: dict[str, str] | None = None) -> NightOutcome:
    """The night's BGG sync: never raises, so a BGG failure cannot fail the site's night.

    Runs only with a links file and a token; whatever goes wrong becomes a `failed`
    outcome with one line (never the token). Nothing of the state moves on a failure,
    so the next night asks again for what this one missed.
    """
    if not links_file:
        return NightOutcome(status="skipped", detail="no links file (BODOGE_BGG_LINKS)")
    try:
        token = read_token(env)
    except TokenError as exc:
        return NightOutcome(status="skipped", detail=str(exc))
    try:
        result = run_bgg_sync(api_url=api_url, warehouse=warehouse, links_file=Path(links_file), token=token,
                              delay=delay, max_age_days=max_age_days, overrides_file=overrides_file)
    except Exception as exc:  # noqa: BLE001 - the stage reports every failure instead of failing the night
        text = one_line(exc).replace(token, "***")
        return NightOutcome(status="failed", detail=text)
    waiting = sorted(u for u, s in result.outcomes.items() if s in ("not_ready", "failed"))
    detail = (f"{len(result.outcomes)} collections, {result.things} things, "
              f"{result.report.get('matched', 0)} games matched"
              + (f"; retried next night: {', '.join(waiting)}" if waiting else ""))
    return NightOutcome(status="ok", detail=detail, result=result)
