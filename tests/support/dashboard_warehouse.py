"""A production-sized test warehouse for the dashboard tests — TEST DATA, not a real crawl.

Why built this way: the dashboards must be tried on a warehouse shaped like production
(about 2,000 games, 5,000 members, 150k collection rows, Japanese names, the site's odd
values, two crawls so the counters move). The site itself comes from the project's
sample-site generator (`samplesite`) and its ground truth; everything up to the marts
goes through the project's own code (RawWriter → build_all → run_checks), so the
dashboard reads exactly what the pipeline writes. Only the tables later parts of the
project produce (model marts and pipeline runs, docs/interface.md) are written directly here,
with rows shaped as the contract says and labelled as fixtures.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest

from samplesite import generate_site, truth_frames
from samplesite.model import Site
from warehouse.build import build_all
from warehouse.quality import run_checks
from warehouse.raw import RawWriter, ensure_raw_schema

BASE_URL = "http://127.0.0.1:8000"
SPEC_FIELDS = ("min_players", "max_players", "min_minutes", "max_minutes", "min_age", "year")
COUNTERS = ("n_watching", "n_played", "n_favorite", "n_have")


@dataclass(frozen=True, slots=True)
class DashboardWarehouse:
    """Where the fixture warehouse is and a few facts the tests check against."""

    path: Path
    n_games: int
    n_members: int
    n_collection_rows: int


def build_test_warehouse(path: Path, *, n_games: int = 2000, n_users: int = 5000, seed: int = 0) -> DashboardWarehouse:
    """Write a complete warehouse file at `path` (replacing any) and return what it holds."""
    path.unlink(missing_ok=True)
    site = generate_site(n_games=n_games, n_users=n_users, seed=seed)
    truth = truth_frames(site)
    rng = np.random.default_rng(seed)
    with duckdb.connect(str(path)) as con:
        _crawl(con, rng, site, truth)
        build_all(con)
        run_checks(con)
        _model_marts(con, rng)
        _pipeline_runs(con)
        _list_outcomes(con, rng)
        counts = {
            t: con.execute(f"SELECT count(*) FROM marts.{t}").fetchone()[0]
            for t in ("games", "members", "collections")
        }
        con.execute("CHECKPOINT")
    return DashboardWarehouse(path, counts["games"], counts["members"], counts["collections"])


def _crawl(
    con: duckdb.DuckDBPyConnection, rng: np.random.Generator, site: Site, truth: dict[str, pl.DataFrame]
) -> None:
    """Two crawl runs through RawWriter; the second only re-reads game pages (counters move)."""
    games = truth["games"]
    writer = RawWriter(con, run_id="crawl-1", batch_size=500_000)
    writer.start_run(base_url=BASE_URL)
    for g in site.games:  # every catalogue row, the broken pages' games included
        writer.add("game_summary", {"game_id": g.game_id, "name_ja": g.name_ja, "name_en": g.name_en,
                                    **{f: getattr(g, f) for f in SPEC_FIELDS}})
    overview = {g.game_id: g.overview for g in site.games}
    for row in games.iter_rows(named=True):
        writer.add("game", {**row, "overview": overview[row["game_id"]], "url": BASE_URL + row["url"]})
    empty = set(truth["empty_users"]["user_id"].to_list())
    for row in truth["members"].iter_rows(named=True):
        writer.add("member", row)
        writer.add("listing_crawl", {"listing": "collection", "key": row["user_id"],
                                     "status": "empty" if row["user_id"] in empty else "public",
                                     "n_entries": 0, "n_pages": 1})
    for user_id in truth["private_users"]["user_id"].to_list():
        writer.add("listing_crawl", {"listing": "collection", "key": user_id, "status": "private",
                                     "n_entries": 0, "n_pages": 1})
    for row in truth["collections"].iter_rows(named=True):
        writer.add("collection_entry", row)
    specs = games.select("game_id", "name_ja", "name_en", *SPEC_FIELDS)
    for row in truth["cafe_games"].join(specs, on="game_id", how="left").iter_rows(named=True):
        writer.add("cafe_game", row)
    for slug, n in truth["cafe_games"].group_by("space_slug").len().iter_rows():
        writer.add("listing_crawl", {"listing": "space", "key": slug, "status": "public", "n_entries": n, "n_pages": 1})
    for row in truth["posts"].iter_rows(named=True):
        writer.add("post", row)
    for row in truth["quarantine"].iter_rows(named=True):
        writer.add("quarantine", {"url": BASE_URL + row["url"], "reason": row["reason"],
                                  "http_status": 500 if "500" in row["reason"] else 200})
    writer.flush()
    writer.finish_run(status="finished", stats={"note": "test data", "games": games.height})

    # The next night: the site's counters have moved a little (more for popular games).
    second = RawWriter(con, run_id="crawl-2", batch_size=500_000)
    second.start_run(base_url=BASE_URL)
    for row in games.iter_rows(named=True):
        moved = {c: max(0, (row[c] or 0) + int(rng.normal(0.02 * (row[c] or 0), 2 + 0.03 * (row[c] or 0))))
                 for c in COUNTERS}
        second.add("game", {**row, **moved, "overview": overview[row["game_id"]], "url": BASE_URL + row["url"]})
    second.flush()
    second.finish_run(status="finished", stats={
        "note": "test data", "games": games.height, "bodoge/mode": "incremental",  # an incremental night's figures
        "bodoge/pages/status/200": 412, "bodoge/pages/status/304": 37, "bodoge/skipped/collections": 1_800,
        "bodoge/queue_left": 3, "bodoge/oldest_page_days": 2.5})
    # Spread the two runs over two nights so freshness and history look like production.
    now = datetime.now(timezone.utc)
    for run_id, age in (("crawl-1", timedelta(days=1, hours=3)), ("crawl-2", timedelta(hours=3))):
        con.execute(
            "UPDATE raw.crawl_runs SET started_at = ?, finished_at = ? WHERE run_id = ?",
            [now - age, now - age + timedelta(minutes=42), run_id],
        )


def _model_marts(con: duckdb.DuckDBPyConnection, rng: np.random.Generator) -> None:
    """Model marts shaped as docs/interface.md says — fixture rows, not a trained model."""
    now = datetime.now(timezone.utc)
    runs = []
    for night in range(7):
        run_id = f"test-run-{night}"
        trained_at = now - timedelta(days=6 - night, hours=2)
        for model, base in (("popularity", 0.08), ("item_knn", 0.14), ("als", 0.16)):
            ndcg = base + 0.005 * night + float(rng.normal(0, 0.004))
            runs.append({
                "run_id": run_id, "model": model, "params": json.dumps({"fixture": True, "factors": 64}),
                "k": 10, "ndcg": ndcg, "precision": ndcg * 0.6, "recall": ndcg * 1.4, "map": ndcg * 0.5,
                "coverage": {"popularity": 0.02, "item_knn": 0.35, "als": 0.28}[model] + 0.01 * night,
                "n_users": 4800, "n_games": 2000, "n_interactions": 120_000 + 500 * night,
                "trained_at": trained_at, "champion": model == "als", "split": "time",
                "long_tail_share": {"popularity": 0.0, "item_knn": 0.4, "als": 0.3}[model] + 0.01 * night,
                "intra_list_diversity": 0.7 + float(rng.normal(0, 0.01)),
                "mean_popularity_rank": {"popularity": 5.5, "item_knn": 400.0, "als": 250.0}[model],
                "rank_stability": None if night == 0 else 0.8 + float(rng.normal(0, 0.02)),
            })
    con.register("runs_df", pl.DataFrame(runs).to_arrow())
    con.execute("""
        CREATE OR REPLACE TABLE marts.model_runs AS
        SELECT run_id, model, params::JSON AS params, k::INTEGER AS k, ndcg, precision, recall, map,
               coverage, n_users::INTEGER AS n_users, n_games::INTEGER AS n_games,
               n_interactions::INTEGER AS n_interactions, trained_at::TIMESTAMPTZ AS trained_at, champion,
               split, long_tail_share, intra_list_diversity, mean_popularity_rank, rank_stability::DOUBLE AS rank_stability
        FROM runs_df
    """)
    con.unregister("runs_df")
    # Play next: each member's owned, unplayed games in a seeded order.
    con.execute("""
        CREATE OR REPLACE TABLE marts.next_to_play AS
        SELECT user_id, row_number() OVER (PARTITION BY user_id ORDER BY hash(user_id || game_id), game_id)::INTEGER AS rank,
               game_id, 1.0 / rank AS score, 'because you own it (test data)' AS reason, 'test-run-6' AS run_id
        FROM marts.collections WHERE have AND NOT played
        QUALIFY rank <= 10
    """)
    # From their watch list: each member's 興味あり games (neither had nor played) in a seeded order.
    con.execute("""
        CREATE OR REPLACE TABLE marts.watch_next AS
        SELECT user_id, row_number() OVER (PARTITION BY user_id ORDER BY hash(game_id || user_id), game_id)::INTEGER AS rank,
               game_id, 1.0 / rank AS score, 'because you watch it (test data)' AS reason, 'test-run-6' AS run_id
        FROM marts.collections WHERE watching AND NOT have AND NOT played
        QUALIFY rank <= 10
    """)
    # Bestsellers and a long-tail sample with a per-user jitter; never a game in the member's collection.
    con.execute("""
        CREATE OR REPLACE TABLE marts.recommendations AS
        WITH candidates AS (
            -- the bestsellers plus a seeded sample of the long tail, as a real model would mix them
            (SELECT game_id, n_members, 0.08 AS boost FROM marts.game_popularity ORDER BY n_members DESC LIMIT 100)
            UNION ALL
            (SELECT game_id, n_members, 0.0 AS boost FROM marts.game_popularity
             WHERE game_id NOT IN (SELECT game_id FROM marts.game_popularity ORDER BY n_members DESC LIMIT 100)
             USING SAMPLE reservoir(100 ROWS) REPEATABLE (7))
        ),
        liked AS (
            SELECT c.user_id, any_value(g.name_ja ORDER BY c.favorite DESC, c.rating DESC NULLS LAST) AS liked_name
            FROM marts.collections c JOIN marts.games g USING (game_id) GROUP BY c.user_id
        ),
        scored AS (
            SELECT m.user_id, c.game_id,
                   c.boost + (hash(m.user_id || c.game_id) % 1000) / 1000.0 AS score
            FROM marts.members m CROSS JOIN candidates c
            ANTI JOIN (SELECT user_id, game_id FROM marts.collections) o
                 ON o.user_id = m.user_id AND o.game_id = c.game_id
        ),
        ranked AS (
            SELECT *, row_number() OVER (PARTITION BY user_id ORDER BY score DESC, game_id) AS rank FROM scored
        )
        SELECT r.user_id, r.rank::INTEGER AS rank, r.game_id, r.score::DOUBLE AS score, 'als' AS model,
               'test-run-6' AS run_id,
               CASE WHEN l.liked_name IS NULL THEN 'popular with members (test data)'
                    ELSE 'because you like ' || l.liked_name END AS reason,
               now() AS generated_at
        FROM ranked r LEFT JOIN liked l USING (user_id)
        WHERE r.rank <= 10
        ORDER BY r.user_id, r.rank
    """)
    con.execute("""
        CREATE OR REPLACE TABLE marts.similar_games AS
        WITH pairs AS (
            SELECT a.game_id, b.game_id AS similar_game_id,
                   len(list_intersect(a.mechanics, b.mechanics))::DOUBLE AS score
            FROM (SELECT * FROM marts.games LIMIT 300) a
            JOIN (SELECT * FROM marts.games LIMIT 300) b ON a.game_id <> b.game_id
        )
        SELECT game_id, row_number() OVER (PARTITION BY game_id ORDER BY score DESC, similar_game_id)::INTEGER AS rank,
               similar_game_id, score, 'test-run-6' AS run_id
        FROM pairs QUALIFY rank <= 10
    """)


def _pipeline_runs(con: duckdb.DuckDBPyConnection) -> None:
    """Nightly job records as the orchestrator will write them — fixture rows."""
    # As pipelines/run_log.py records Dagster asset checks: with the asset, severity upper-case.
    checks = con.sql(
        "SELECT check_name AS name, 'marts/quality' AS asset, passed, upper(severity) AS severity, description "
        "FROM marts.quality_checks ORDER BY check_name"
    ).pl().to_dicts()
    now = datetime.now(timezone.utc)
    rows = []
    for night in range(7):
        started = now - timedelta(days=6 - night, hours=3)
        failed = night == 4
        rows.append({
            "run_id": f"test-run-{night}", "job": "nightly", "started_at": started,
            "finished_at": started + timedelta(minutes=55 + 3 * night),
            "status": "FAILURE" if failed else "SUCCESS",
            "n_checks": len(checks), "n_failed_checks": sum(not c["passed"] for c in checks),
            "checks": json.dumps(checks, ensure_ascii=False),
        })
    con.register("pipeline_df", pl.DataFrame(rows).to_arrow())
    con.execute("""
        CREATE OR REPLACE TABLE marts.pipeline_runs AS
        SELECT run_id, job, started_at::TIMESTAMPTZ AS started_at, finished_at::TIMESTAMPTZ AS finished_at,
               status, n_checks::INTEGER AS n_checks, n_failed_checks::INTEGER AS n_failed_checks,
               checks::JSON AS checks
        FROM pipeline_df
    """)
    con.unregister("pipeline_df")


def _list_outcomes(con: duckdb.DuckDBPyConnection, rng: np.random.Generator) -> None:
    """Six recorded nights (the successful runs of `_pipeline_runs`) and what members did with the
    lists of the first five, one night on: hits drawn at plausible rates, intervals by the
    warehouse's own bootstrap (`warehouse.outcomes.rates.interval`) — fixture rows."""
    from warehouse.db import ensure_table
    from warehouse.outcomes.rates import interval

    for table in ("history_nights", "list_outcomes"):
        ensure_table(con, table)
    nights = con.execute("SELECT run_id, started_at FROM marts.pipeline_runs WHERE status = 'SUCCESS' "
                         "ORDER BY started_at").fetchall()
    con.executemany("INSERT INTO marts.history_nights VALUES (?, ?, ?)",
                    [(no, run_id, started) for no, (run_id, started) in enumerate(nights, 1)])
    rows = []
    for (served, _), (outcome, at) in zip(nights, nights[1:]):
        for kind, n_served, acting, ours, popular in (("discovery", 4800, 0.02, 0.22, 0.12),
                                                      ("watch_list", 3900, 0.01, 0.35, 0.25),
                                                      ("play_next", 3100, 0.015, 0.45, 0.3)):
            members = int(rng.binomial(n_served, acting))
            figures = {}
            for name, rate in (("hit_rate", ours), ("popularity", popular), ("previous", ours * 0.95)):
                hits = rng.random(members) < rate
                figures[name] = interval(hits, seed=len(rows)), int(hits.sum())
            (rate, low, high), n_hits = figures["hit_rate"]
            (pop, pop_low, pop_high), _ = figures["popularity"]
            (prev, prev_low, prev_high), _ = figures["previous"]
            discovery = kind == "discovery"
            rows.append({
                "served_night_id": served, "list_kind": kind, "nights_after": 1, "outcome_night_id": outcome,
                "served": n_served, "members": members, "hits": n_hits, "hit_rate_at_10": rate,
                "hit_rate_low": low, "hit_rate_high": high, "popularity_hit_rate_at_10": pop,
                "popularity_low": pop_low, "popularity_high": pop_high,
                "previous_run_id": f"model-{served}" if discovery else None,
                "previous_members": members if discovery else None,
                "previous_hit_rate_at_10": prev if discovery else None,
                "previous_low": prev_low if discovery else None, "previous_high": prev_high if discovery else None,
                "computed_at": at,
            })
    con.register("outcomes_df", pl.DataFrame(rows, infer_schema_length=None).to_arrow())
    con.execute("INSERT INTO marts.list_outcomes BY NAME SELECT * FROM outcomes_df")
    con.unregister("outcomes_df")


if __name__ == "__main__":  # handy for poking at the dashboard by hand
    import sys
    import time

    target = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/dashboard-test.duckdb")
    t0 = time.perf_counter()
    print(build_test_warehouse(target), f"{time.perf_counter() - t0:.1f}s")


@pytest.fixture(scope="session")
def empty_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A warehouse as the first night leaves it before any crawl: every table, no rows."""
    path = tmp_path_factory.mktemp("dashboard-empty") / "warehouse.duckdb"
    with duckdb.connect(str(path)) as con:
        ensure_raw_schema(con)
        build_all(con)
    return path
