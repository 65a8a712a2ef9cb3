"""The benchmark code paths run and report every figure (correctness, never timing)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import dagster as dg
import duckdb
import pytest


ROOT = Path(__file__).resolve().parents[2]


def test_quick_run_prints_a_table_then_one_json_line_with_each_figure_and_its_target() -> None:
    """`python -m benchmarks --quick` without the crawl and the nights (they have their own tests)."""
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--json", "--skip", "crawl,night"],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1  # --json: the JSON alone on stdout, the table on stderr
    result = json.loads(lines[0])
    assert result["parse"]["pages"] > 0 and result["parse"]["ratio"] > 0
    assert result["load"]["marts_rows_per_s"] > 0 and result["load"]["upsert_rows_per_s"] > 0
    assert result["fit"]["candidates"]["als"]["ratio"] > 0
    assert set(result["targets"]) == {"parse", "load"}  # fit's target needs the night's champion
    assert result["targets"]["parse"]["target"] == "≥ 0.5"
    assert result["targets"]["parse"]["met"] == (result["parse"]["ratio"] >= 0.5)
    for step in ("parse", "load", "fit"):
        assert f"benchmarks: {step} done" in proc.stderr
    assert "parse: ours / bare lxml" in proc.stderr and "crawl:" not in proc.stderr


def test_unknown_step_to_skip_is_a_one_line_error() -> None:
    proc = subprocess.run([sys.executable, "-m", "benchmarks", "--skip", "parse,nope"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 2 and "unknown step(s) nope" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("value", "message"),
    [("25000x100000", "at least two sizes"), ("25000x100000,big", "'big' is not GAMESxMEMBERS"),
     ("25000x0,25000x1", "'25000x0' is not GAMESxMEMBERS")],
)
def test_bad_night_sizes_are_a_one_line_error(value: str, message: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "benchmarks", "--night-sizes", value],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    error = proc.stderr.strip().splitlines()[-1]  # argparse's usage first, then one line
    assert error.startswith("__main__.py: error: --night-sizes: ") and message in error


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--stage", "nope"], "--stage: unknown stage 'nope' (one of load, yardstick, build, evaluation"),
     (["--stage", "discovery"], "--stage discovery runs again on an earlier run: give its --work-dir"),
     (["--stage", "export", "--work-dir", "/nonexistent/bodoge"], "--stage export runs again on an earlier run"),
     (["--stage", "load", "--work-dir", "/tmp"], "--stage load is the benchmark's own first step")],
)
def test_a_stage_by_hand_without_its_run_is_a_one_line_error(args: list[str], message: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "BODOGE_SCALE_ARGS"}
    proc = subprocess.run([sys.executable, "-m", "benchmarks.scale", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    error = proc.stderr.strip().splitlines()[-1]
    assert error.startswith("scale.py: error: ") and message in error, error


def test_scale_benchmark_runs_every_stage_of_the_night(tmp_path: Path) -> None:
    work = tmp_path / "night"
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.scale", "--games", "80", "--members", "200", "--json",
         "--work-dir", str(work), "--reuse-night"],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    figures = json.loads(proc.stdout.strip().splitlines()[-1])
    for key in ("games", "members", "collection_rows", "stages", "discovery_members_per_s",
                "content_similarity_seconds", "total_seconds", "peak_rss_mb", "targets", "yardstick",
                "night_yardstick_ratio"):
        assert key in figures, key
    # exactly the sizes asked for (no planted-broken game left out)
    assert figures["members"] == 200 and figures["games"] == 80 and figures["collection_rows"] > 0
    assert list(figures["stages"]) == ["build", "evaluation", "fit", "discovery", "outcomes", "export"]
    stick = figures["yardstick"]
    assert 0 < stick["items"] <= 80 and stick["scored_members"] == stick["members"] > 0 and stick["seconds"] > 0
    for stage in figures["stages"].values():
        assert stage["seconds"] > 0 and stage["peak_rss_mb"] > 0
        assert stage["yardstick_ratio"] == pytest.approx(stage["seconds"] / stick["seconds"], abs=0.01)
    assert figures["discovery_members_per_s"] > 0 and figures["content_similarity_seconds"] > 0
    assert "scale: discovery done" in proc.stderr
    # --reuse-night: the same stages again on the same warehouse, with its own figures and target
    again = figures["reuse_night"]
    assert list(again["stages"]) == list(figures["stages"]) and "scale: reuse night: export done" in proc.stderr
    assert again["total_seconds"] == pytest.approx(sum(s["seconds"] for s in again["stages"].values()), abs=0.05)
    assert again["tuning_reused"] is False  # 200 members: small data is tuned afresh every night
    assert figures["targets"]["reuse_total_seconds"]["target"] == 600
    # The stages really ran the night: marts, model runs, recommendations and a bundle.
    with duckdb.connect(str(work / "warehouse.duckdb"), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM marts.collections").fetchone()[0] == figures["collection_rows"]
        assert con.execute("SELECT count(*) FROM raw.games").fetchone()[0] == 80
        # the yardstick's games: every game with an entry (at most its cap)
        assert con.execute("SELECT count(DISTINCT game_id) FROM raw.collection_entries").fetchone()[0] == stick["items"]
        # one champion per evaluation split and night; the time split's names the night's model
        assert con.execute("SELECT count(*) FROM marts.model_runs WHERE champion AND split = 'time'").fetchone()[0] == 2
        assert con.execute("SELECT count(DISTINCT user_id) FROM marts.recommendations").fetchone()[0] > 0
        assert "notes" in [row[0] for row in con.execute("DESCRIBE marts.model_runs").fetchall()]
    assert (work / "exports" / "LATEST").exists()


def test_scale_benchmark_ranks_in_member_buckets(tmp_path: Path) -> None:
    """`--buckets 3` at a small size: the discovery stage ranks three partitions, and the night's
    lists are whole (every member with games has a list)."""
    work = tmp_path / "night"
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.scale", "--games", "60", "--members", "150", "--json",
         "--work-dir", str(work), "--buckets", "3"],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    figures = json.loads(proc.stdout.strip().splitlines()[-1])
    assert figures["buckets"] == 3 and figures["discovery_members_per_s"] > 0
    # the same buckets again, one process each, from the saved model: the same lists as the night's
    procs = figures["bucket_processes"]
    assert [b["bucket"] for b in procs["buckets"]] == [0, 1, 2] and procs["workers"] == min(3, os.cpu_count() or 1)
    assert sum(b["rows"] for b in procs["buckets"]) == procs["rows"]["recommendations"] > 0
    assert procs["same_lists"] == {"recommendations": True, "next_to_play": True, "watch_next": True}
    assert 0 < procs["max_bucket_peak_rss_mb"] <= procs["concurrent_peak_bound_mb"] <= procs["night_peak_rss_mb"]
    assert procs["fit_peak_rss_mb"] == figures["stages"]["fit"]["peak_rss_mb"]
    assert 0 < procs["overhead"]["share_of_night"] < 1 and procs["side_by_side"]["night_step_seconds"] > 0
    assert procs["side_by_side"]["night_step_executor"] == "multiprocess"  # as `bodoge run` ranks them
    assert not (work / "bucket-processes").exists()  # members' lists kept no longer than measured
    with dg.DagsterInstance.from_config(str(work / "dagster_home")) as instance:
        ranked = instance.get_materialized_partitions(dg.AssetKey(["recsys", "discovery_buckets"]))
    assert set(ranked) == {"00", "01", "02"}
    with duckdb.connect(str(work / "warehouse.duckdb"), read_only=True) as con:
        listed = con.execute("SELECT count(DISTINCT user_id) FROM marts.recommendations").fetchone()[0]
        collecting = con.execute("SELECT count(DISTINCT user_id) FROM marts.collections").fetchone()[0]
    assert listed >= collecting > 0


def test_scale_benchmark_refuses_a_used_work_dir(tmp_path: Path) -> None:
    (tmp_path / "warehouse.duckdb").write_bytes(b"")
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.scale", "--games", "10", "--members", "10", "--work-dir", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )
    assert proc.returncode == 2 and "already holds a warehouse" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_backup_benchmark_prints_ours_beside_duckdbs_other_means() -> None:
    proc = subprocess.run([sys.executable, "-m", "benchmarks.backup", "--games", "300", "--members", "600",
                           "--rows", "6000"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    figures = json.loads(proc.stdout)
    assert figures["ours"]["backup_mb"] == figures["warehouse_mb"] > 0
    assert figures["export_parquet"]["import_seconds"] >= 0 and figures["copy_from_database"]["mb"] > 0


def test_discovery_benchmark_reports_each_mode() -> None:
    """`python -m benchmarks.discovery` at a tiny size: members per second for each mode."""
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.discovery", "--games", "80", "--members", "120", "--passes", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert set(result["members_per_s"]) == {"discovery", "play_next", "watch_list"}
    assert all(rate > 0 for rate in result["members_per_s"].values())
    assert result["rows"]["discovery"] > 0 and len(result["loadavg"]) == 3


def test_discovery_benchmark_runs_either_engine() -> None:
    """`--engine reference` ranks by the readable reference, and says so."""
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.discovery", "--games", "80", "--members", "120", "--passes", "1",
         "--engine", "reference"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["engine"] == "reference" and result["rows"]["discovery"] > 0


def test_discovery_paths_benchmark_times_every_variant_on_the_same_lists() -> None:
    """`benchmarks.discovery_paths` at a tiny size: each variant ranks the compiled engine's rows."""
    from benchmarks.discovery_paths import VARIANTS, measure

    result = measure(games=120, members=200, rounds=1, champion="ease")
    assert set(result["seconds"]) == set(VARIANTS)
    assert all(result["same_rows_as_compiled"].values()), result["same_rows_as_compiled"]
    assert result["ratio_to_compiled"]["compiled"] == {"discovery": 1.0, "play_next": 1.0, "watch_list": 1.0}
