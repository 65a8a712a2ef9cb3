"""The whole Dagster graph on a small generated site, twice, as `bodoge run` does it.

Checks the issue's "done when": two runs in a row leave identical marts (apart from run
ids and timestamps) and two complete export bundles; every recommendation is unplayed
and unowned; the schedule, job and checks load; `dg check defs` passes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from core.settings import Settings
from bodoge.jobs import run_nightly
from models.candidates import default_candidates
from samplesite.generator import generate_site
from samplesite.server import SampleSiteServer
from warehouse.db import connect
from warehouse.privacy.public import public_users
from tests.support.http_stubs import Receiver
from warehouse.release.export import latest_bundle, verify_bundle
from warehouse.release.schemas import validate_bundle
from warehouse.release.push import idempotency_key

VOLATILE = {"run_id", "night_id", "crawled_at", "fetched_at", "generated_at", "trained_at", "checked_at"}
MARTS = ["games", "collections", "cafe_games", "members", "game_popularity", "member_profiles",
         "cafe_coverage", "recommendations", "similar_games", "next_to_play", "watch_next"]


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("data")
    settings = Settings(data_dir=data_dir)
    paths = settings.paths
    saved = {k: os.environ.get(k) for k in ("BODOGE_DATA_DIR", "BODOGE_WAREHOUSE", "BODOGE_BASE_URL", "DAGSTER_HOME")}
    site = generate_site(n_games=120, n_users=220, seed=3)
    snapshots, summaries, published = [], [], []
    receiver = Receiver(fail_first=1)  # the site's endpoint, down for the first attempt
    try:
        with SampleSiteServer(site) as server:
            for push in (None, receiver.url):  # the second run also delivers its bundle
                summaries.append(run_nightly(settings.replace(base_url=server.base_url, push_url=push)))
                with connect(paths.warehouse, read_only=True) as con:
                    snapshots.append({t: con.sql(f"SELECT * FROM marts.{t}").pl() for t in MARTS})
                published.append(_published_nights(paths.data_dir / "published.duckdb"))
    finally:
        receiver.close()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return paths, summaries, snapshots, receiver, published


def _published_nights(path: Path) -> dict:
    """What the published night says of the nights: its marts (tables and views), its publication,
    marts.nights and marts.model_quality."""
    with connect(path, read_only=True) as con:
        return {
            "marts": {r[0] for r in con.execute(
                "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'marts' UNION ALL "
                "SELECT view_name FROM duckdb_views() WHERE schema_name = 'marts' AND NOT internal").fetchall()},
            "publication": con.sql("SELECT * FROM marts.publication").pl(),
            "nights": con.sql("SELECT * FROM marts.nights").pl(),
            "quality": con.sql("SELECT * FROM marts.model_quality").pl(),
        }


def stable(frame: pl.DataFrame) -> pl.DataFrame:
    """Without run ids, timestamps and the change-since-previous-crawl columns (null on a first crawl)."""
    keep = [c for c in frame.columns if c not in VOLATILE and not c.endswith("_change")]
    return frame.select(keep).sort(keep[:2])


def test_every_stage_ran_and_checks_passed(two_runs) -> None:
    _, summaries, *_ = two_runs
    for summary in summaries:
        assert any("raw_tables" in s for s in summary.steps)
        assert any("discovery" in s for s in summary.steps) and any("site_bundle" in s for s in summary.steps)
        blocking_failures = [c for c in summary.checks if not c["passed"] and c["severity"] == "ERROR"]
        assert not blocking_failures
        names = {c["name"] for c in summary.checks}
        assert {"no_owned_or_played_recommended", "no_watched_game_recommended", "watch_next_only_the_watch_list",
                "games_unique_key", "collections_contract_columns"} <= names


def test_two_runs_leave_identical_marts(two_runs) -> None:
    _, _, (first, second), *_ = two_runs
    for table in MARTS:
        assert_frame_equal(stable(first[table]), stable(second[table]), check_exact=False, rel_tol=1e-9), table


def test_no_recommendation_is_in_the_members_collection(two_runs) -> None:
    paths, *_ = two_runs
    with connect(paths.warehouse, read_only=True) as con:
        recs = con.sql("SELECT * FROM marts.recommendations").pl()
        owned = con.sql("SELECT user_id, game_id FROM marts.collections").pl()  # 興味あり and favourites too
        public = public_users(con)
        members = {u for (u,) in con.execute("SELECT user_id FROM marts.members").fetchall() if u in public}
        empty = {u for (u,) in con.execute("SELECT user_id FROM marts.members WHERE n_games = 0").fetchall()}
    # issue 42: every public member has a list; those without a collection a welcome list
    assert recs.height > 0 and set(recs["user_id"]) == members
    welcomed = set(recs.filter(pl.col("welcome"))["user_id"])
    assert empty & members and empty & members <= welcomed
    assert recs.join(owned, on=["user_id", "game_id"], how="semi").height == 0
    assert {"user_id", "rank", "game_id", "score", "model", "run_id", "reason", "generated_at"} <= set(recs.columns)
    assert recs["reason"].str.len_chars().min() > 0


def test_two_complete_export_bundles(two_runs) -> None:
    paths, *_ = two_runs
    bundles = sorted(p for p in paths.exports.iterdir() if p.is_dir())
    assert len(bundles) == 2 and not [p for p in bundles if p.name.startswith(".tmp")]
    for bundle in bundles:
        manifest = verify_bundle(bundle)
        lines = (bundle / "recommendations.jsonl").read_text(encoding="utf-8").splitlines()
        assert len(lines) == manifest["counts"]["users"] > 0
        assert set(json.loads(lines[0])) == {"user_id", "items", "welcome"}  # schema 1.1.0
        shelf = (bundle / "next_to_play.jsonl").read_text(encoding="utf-8").splitlines()
        assert len(shelf) == manifest["counts"]["next_to_play_users"] > 0
        watched = (bundle / "watch_next.jsonl").read_text(encoding="utf-8").splitlines()
        assert len(watched) == manifest["counts"]["watch_next_users"] > 0
        assert sum(len(json.loads(x)["items"]) for x in watched) == manifest["counts"]["watch_next"]
        # Issue 23: every line of every file matches the schema shipped in its bundle.
        assert validate_bundle(bundle).lines == {name: len((bundle / name).read_text(encoding="utf-8").splitlines())
                                                 for name in manifest["files"] if name.endswith(".jsonl")}
    assert latest_bundle(paths.exports) == max(bundles, key=lambda p: json.loads((p / "manifest.json").read_text())["created_at"])


def test_each_published_night_is_backed_up_and_verified(two_runs) -> None:
    from warehouse.backup.backup import list_backups, verify_backup

    paths, summaries, *_ = two_runs
    assert all(any("warehouse_backup" in s for s in summary.steps) for summary in summaries)
    backups = list_backups(paths.data_dir / "backups")
    assert len(backups) == 1, backups  # two nights on one day: retention keeps that day's newest
    backup = verify_backup(backups[0].path)
    assert backup.run_id == summaries[1].run_id
    with connect(paths.warehouse, read_only=True) as con:
        rows = con.execute("SELECT count(*) FROM marts.recommendations").fetchall()[0][0]
    assert backup.tables["marts.recommendations"] == rows > 0


def test_model_runs_and_pipeline_runs_keep_history(two_runs) -> None:
    paths, summaries, *_ = two_runs
    with connect(paths.warehouse, read_only=True) as con:
        runs = con.sql("SELECT run_id, split, count(*) AS n, sum(champion::INT) AS champions, "
                       "count(long_tail_share) AS n_tail, count(intra_list_diversity) AS n_ild, "
                       "count(mean_popularity_rank) AS n_pop, count(rank_stability) AS n_stable "
                       "FROM marts.model_runs GROUP BY ALL ORDER BY run_id, split").pl()
        pipeline = con.sql("SELECT run_id, status, n_checks FROM marts.pipeline_runs").pl()
    # Every candidate on both splits (random, time) of both nights, one champion per split;
    # beyond-accuracy metrics for all, rank stability from the second night on.
    assert runs.height == 4 and runs["split"].to_list() == ["random", "time"] * 2
    n = len(default_candidates())  # every candidate has a row on each split of each night
    assert runs["n"].to_list() == [n] * 4 and runs["champions"].to_list() == [1] * 4
    assert runs["n_tail"].to_list() == runs["n_ild"].to_list() == runs["n_pop"].to_list() == [n] * 4
    assert runs["n_stable"].to_list() == [0, 0, n, n]
    assert sorted(pipeline["run_id"]) == sorted(s.run_id for s in summaries)
    assert (pipeline["status"] == "SUCCESS").all() and (pipeline["n_checks"] > 5).all()


def test_definitions_schedule_and_dg_check(tmp_path: Path) -> None:
    from pipelines.definitions import defs

    d = defs()
    schedule = d.resolve_schedule_def("nightly_at_3am_jst")
    assert schedule.cron_schedule == "0 3 * * *" and schedule.execution_timezone == "Asia/Tokyo"
    assert d.resolve_job_def("nightly") is not None
    dg = Path(sys.executable).with_name("dg")
    env = {**os.environ, "DAGSTER_HOME": str(tmp_path), "BODOGE_DATA_DIR": str(tmp_path)}
    run = subprocess.run([str(dg), "check", "defs"], capture_output=True, text=True, cwd=Path(__file__).parents[2], env=env)
    assert run.returncode == 0, run.stdout + run.stderr


def test_recommend_cli_filters_and_still_returns_n(two_runs) -> None:
    paths, *_ = two_runs
    with connect(paths.warehouse, read_only=True) as con:
        user = con.execute("SELECT user_id FROM marts.members WHERE n_games >= 5 ORDER BY user_id LIMIT 1").fetchall()[0][0]
        known = {r[0] for r in con.execute(
            "SELECT game_id FROM marts.collections WHERE user_id = ? AND (have OR played)", [user]).fetchall()}
        qualifying = con.execute(
            "SELECT count(*) FROM marts.games g WHERE players_from <= 4 AND 4 <= players_to "
            "AND minutes_to <= 30 AND game_id NOT IN "
            "(SELECT game_id FROM marts.collections WHERE user_id = ? AND (have OR played OR favorite))", [user]
        ).fetchall()[0][0]
    run = subprocess.run(
        [sys.executable, "-m", "bodoge.cli", "recommend", user, "-n", "10", "--players", "４", "--max-minutes", "30",
         "--json", "--data-dir", str(paths.data_dir)],
        capture_output=True, text=True, encoding="utf-8",
    )
    assert run.returncode == 0, run.stderr
    rows = json.loads(run.stdout)
    assert len(rows) == min(10, qualifying) and [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
    for row in rows:
        assert row["game_id"] not in known and row["reason"]
        assert row["min_players"] <= 4 <= (row["max_players"] or row["min_players"])
        assert (row["max_minutes"] or row["min_minutes"]) <= 30


def test_second_run_pushed_its_bundle_once(two_runs) -> None:
    paths, _, _, receiver, _ = two_runs
    manifest = verify_bundle(latest_bundle(paths.exports))
    assert list(receiver.stored) == [idempotency_key(manifest)]  # delivered once, after one retry
    assert len(receiver.posts) == 2


def test_the_second_night_is_incremental_and_fetches_almost_nothing(two_runs) -> None:
    """`bodoge run` twice on an unchanged site: the second crawl reads the listings that carry
    the change signals and little else (issue 11)."""
    from warehouse.crawl_runs import crawl_figures

    paths, *_ = two_runs
    with connect(paths.warehouse, read_only=True) as con:
        stats = [json.loads(s) for (s,) in con.execute("SELECT stats FROM raw.crawl_runs ORDER BY started_at").fetchall()]
    first, second = (crawl_figures(s) for s in stats[-2:])
    assert (first["mode"], second["mode"]) == ("full", "incremental")
    assert second["fetched"] < 0.15 * first["fetched"] and second["skipped"] > 150
    assert second["queue_left"] <= 5  # only pages broken on purpose wait for the next night


def test_the_published_night_records_the_checks_it_ran(two_runs) -> None:
    """marts.publication.checks: the one count of checks readers show, all but what runs after publishing."""
    paths, summaries, *_ = two_runs
    with connect(paths.data_dir / "published.duckdb", read_only=True) as con:
        run_id, checks = con.execute("SELECT run_id, checks FROM marts.publication").fetchall()[0]
    assert run_id == summaries[-1].run_id
    recorded = {c["name"]: c["passed"] for c in json.loads(checks)}
    ran = {c["name"]: c["passed"] for c in summaries[-1].checks}
    assert set(ran) - set(recorded) == {"bundle_delivered"}  # the delivery comes after the release
    assert recorded == {name: passed for name, passed in ran.items() if name in recorded}


def test_two_nights_are_joined_by_one_id_and_model_quality_shows_both(two_runs, capsys) -> None:
    """Issue 23, item 3: the Dagster run's id is the night's id in every table of the night;
    marts.nights joins them, marts.model_quality shows both nights (stability from the second);
    every one of those marts is in the published night from the first night on."""
    from bodoge.summary import print_summary
    from warehouse.nights import NIGHT_TABLES, NIGHT_VIEWS

    paths, summaries, _, _, published = two_runs
    night_ids = [s.run_id for s in summaries]
    with connect(paths.warehouse, read_only=True) as con:
        nights = con.sql("SELECT * FROM marts.nights").pl()
        carried = {table: {r[0] for r in con.execute(f"SELECT DISTINCT night_id FROM {table}").fetchall()}
                   for table in ("raw.crawl_runs", "marts.model_runs", "marts.recommendations", "marts.similar_games",
                                 "marts.recommendation_runs", "marts.pipeline_runs")}
        bundle_of = {r[0]: r[1] for r in con.execute(
            "SELECT night_id, any_value(run_id) FROM marts.recommendations GROUP BY night_id").fetchall()}
        quality = con.sql("SELECT * FROM marts.model_quality").pl()
    assert nights["night_id"].to_list() == night_ids and nights["status"].to_list() == ["SUCCESS"] * 2
    assert nights["crawl_run_id"].null_count() == 0 and nights["crawl_status"].to_list() == ["finished"] * 2
    assert (nights["export_run_id"] == nights["model_run_id"]).all()
    assert bundle_of == {night_ids[1]: nights["export_run_id"][1]}  # the bundle folder is the night's model run
    assert {(paths.exports / b / "manifest.json").is_file() for b in nights["export_run_id"]} == {True}
    assert carried["raw.crawl_runs"] == carried["marts.model_runs"] == carried["marts.pipeline_runs"] == set(night_ids)
    assert carried["marts.recommendation_runs"] == set(night_ids)
    assert carried["marts.recommendations"] == carried["marts.similar_games"] == {night_ids[1]}  # replaced nightly

    assert quality["night_id"].to_list() == night_ids
    assert quality["model_run_id"].to_list() == nights["model_run_id"].to_list()
    assert quality["split"].to_list() == ["time"] * 2 and quality["selection"].str.contains("time split of TRAIN").all()
    assert quality["selection_ndcg"].null_count() == quality["test_ndcg"].null_count() == 0
    assert ((quality["list_coverage"] > 0) & (quality["list_coverage"] <= 1)).all()
    first, second = quality.row(0, named=True), quality.row(1, named=True)
    assert first["stability"] is None and first["previous_night_id"] is None and first["n_compared"] == 0
    # The site did not change between the nights: every member with a list is compared.
    assert second["previous_night_id"] == night_ids[0] and second["n_compared"] > 100
    assert 0.5 < second["stability"] <= 1.0

    expected = set(NIGHT_TABLES) | set(NIGHT_VIEWS) | {"publication"}
    for night_id, snapshot in zip(night_ids, published):
        assert expected <= snapshot["marts"]  # from the first night on
        assert snapshot["publication"]["night_id"].to_list() == [night_id]
        own = snapshot["nights"].filter(pl.col("night_id") == night_id).row(0, named=True)
        assert own["status"] == "STARTED" and own["export_run_id"] == snapshot["publication"]["export_run_id"][0]
    assert published[0]["quality"]["night_id"].to_list() == night_ids[:1]
    assert published[1]["nights"]["night_id"].to_list() == night_ids
    assert published[1]["quality"]["night_id"].to_list() == night_ids

    print_summary(paths, summaries[1])
    out = capsys.readouterr().out
    champion = next(line for line in out.splitlines() if "champion:" in line)
    assert f"chosen by best NDCG@10 of {len(default_candidates())} candidates on a " in champion
    assert "time split of TRAIN" in champion and ("followed the offline split" in champion
                                                   or "followed the forward split" in champion)  # models.forward
    assert "on TEST (each member's latest 20%, never used to choose)" in out and "TEST NDCG@10: " in out
    assert "stability (Jaccard@10 against the previous night)" in out
