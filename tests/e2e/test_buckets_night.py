"""A night in member buckets publishes what the night in one bucket publishes, bit for bit,
and a night killed in a bucket completes by re-running that bucket alone.

Real nights (`bodoge demo` on a 100-game, 200-member site: crawl over HTTP, build, every
model, export, release). Two
nights of the same site are not equal to the last bit (the same collections and champion
choice, but the content model's features round differently from one process to the next, so
a few scores differ in the last place; before buckets too), so each comparison re-ranks one
night's own data:
`python -m pipelines.rerun --discovery` runs the fit, every bucket, the writer, the export
and the release again on the night's interactions, content model and champion choice, with
another number of buckets, in a copy of its data directory. Compared: the published night's
lists (every column but the night's and the run's ids and times) and the bundle's files,
byte for byte.

* a demo night (one bucket, the default) against its discovery in four buckets;
* a demo night in four buckets, ranked in parallel by Dagster's multiprocess executor (a step
  and a process per bucket, `pipelines/defs/recsys/fanout.py`), whose bucket 03 step process
  (found by the pid the test hook `BODOGE_TEST_PAUSE_AT=bucket-03` writes; not the night's
  worker) is killed with SIGKILL: the other buckets finish, the night fails in its buckets'
  step and publishes nothing; `python -m pipelines.rerun --bucket 03` ranks that partition
  alone, then the writer, the export and the release run; against the same night's
  discovery in one bucket.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import dagster as dg
import duckdb
import polars as pl

from bodoge.jobs import night_environment
from core.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
LISTS = {
    "recommendations": ("user_id, rank", ("night_id", "generated_at", "run_id")),
    "next_to_play": ("user_id, rank", ("run_id",)),
    "watch_next": ("user_id, rank", ("run_id",)),
    "similar_games": ("game_id, rank", ("night_id", "run_id")),
}
"""The published lists, their order, and the columns that name the night (its id, time, run)."""


def _demo(data_dir: Path, **env: str) -> subprocess.Popen:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("BODOGE_")}
    # a small site: the test is about the buckets' steps, not the night's size
    return subprocess.Popen([sys.executable, "-m", "bodoge.cli", "demo", "--data-dir", str(data_dir),
                             "--games", "100", "--users", "200"], cwd=ROOT,
                            env={**clean, **env}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _lists(data_dir: Path) -> dict[str, pl.DataFrame]:
    with duckdb.connect(str(data_dir / "published.duckdb"), read_only=True) as con:
        return {table: con.sql(f"SELECT * EXCLUDE ({', '.join(ids)}) FROM marts.{table} ORDER BY {order}").pl()
                for table, (order, ids) in LISTS.items()}


def _bundle(data_dir: Path) -> dict[str, bytes]:
    exports = data_dir / "exports"
    bundle = exports / (exports / "LATEST").read_text(encoding="utf-8").strip()
    files = {str(p.relative_to(bundle)): p.read_bytes() for p in sorted(bundle.rglob("*")) if p.is_file()}
    manifest = json.loads(files.pop("manifest.json"))
    return {**files, "counts": json.dumps(manifest["counts"], sort_keys=True).encode()}


def _assert_same_night(expected: Path, got: Path) -> None:
    want, have = _lists(expected), _lists(got)
    for table in LISTS:
        assert want[table].height > 0 and have[table].equals(want[table]), f"{table} differs"
    want_files, have_files = _bundle(expected), _bundle(got)
    assert sorted(have_files) == sorted(want_files)
    assert any(name.endswith(".jsonl") for name in want_files)
    for name, content in want_files.items():
        assert have_files[name] == content, f"the bundle's {name} differs"


def _buckets_materialized(data_dir: Path) -> set[str]:
    with dg.DagsterInstance.from_config(str(data_dir / "dagster_home")) as instance:
        return set(instance.get_materialized_partitions(dg.AssetKey(["recsys", "discovery_buckets"])))


def _night_processes(pid: int) -> list[int]:
    """`pid` and its descendants, parents first (from /proc)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text(encoding="utf-8").rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        found.append(todo.pop(0))
        todo.extend(sorted(children.get(found[-1], [])))
    return found


def _rerun(data_dir: Path, buckets: int, *args: str) -> None:
    env = {**os.environ, **night_environment(Settings(data_dir=data_dir, discovery_buckets=buckets))}
    run = subprocess.run([sys.executable, "-m", "pipelines.rerun", *args], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=1200)
    assert run.returncode == 0, run.stderr[-3000:]


def _in_buckets(night: Path, copy: Path, buckets: int) -> Path:
    """A copy of `night`, its discovery ranked again (from the fit on) in `buckets` buckets."""
    shutil.copytree(night, copy, symlinks=True)
    _rerun(copy, buckets, "--discovery")
    return copy


def test_four_buckets_publish_the_one_bucket_night(tmp_path: Path) -> None:
    one = tmp_path / "one"
    night = _demo(one)  # one bucket, the default
    output, _ = night.communicate(timeout=1500)
    assert night.returncode == 0, output[-3000:]
    four = _in_buckets(one, tmp_path / "four", 4)
    _assert_same_night(one, four)
    assert _buckets_materialized(four) == {"00", "01", "02", "03"}
    assert not any((four / "buckets").iterdir())  # the members' lists are gone once appended


def test_a_night_killed_in_a_bucket_completes_by_that_bucket_alone(tmp_path: Path) -> None:
    data = tmp_path / "killed"
    night = _demo(data, BODOGE_DISCOVERY_BUCKETS="4", BODOGE_TEST_PAUSE_AT="bucket-03")
    flag = data / "paused-at-bucket-03"
    deadline = time.monotonic() + 1500
    while not flag.exists():
        assert night.poll() is None and time.monotonic() < deadline, "the night never reached its last bucket"
        time.sleep(0.2)
    time.sleep(0.2)  # the pid is written with the flag
    step_pid = int(flag.read_text(encoding="utf-8").split()[0])
    family = _night_processes(night.pid)
    workers = [p for p in family if b"pipelines.worker" in Path(f"/proc/{p}/cmdline").read_bytes()]
    assert step_pid in family and workers and step_pid not in workers, "bucket 03 not in a step process of its own"
    os.kill(step_pid, signal.SIGKILL)  # bucket 03's step process alone
    output, _ = night.communicate(timeout=600)
    flag.unlink(missing_ok=True)
    assert night.returncode != 0, output[-3000:]
    assert "nightly: FAILED recsys__discovery_buckets" in output, output[-3000:]
    assert not (data / "published.duckdb").exists() and not (data / "exports" / "LATEST").exists()
    (folder,) = list((data / "buckets").iterdir())
    assert sorted(p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")) == ["00", "01", "02"]
    assert _buckets_materialized(data) == {"00", "01", "02"}  # each bucket step recorded its partition
    with dg.DagsterInstance.from_config(str(data / "dagster_home")) as instance:
        (fanout,) = instance.get_runs(dg.RunsFilter(job_name="discovery_buckets_fanout"))
        (nightly,) = instance.get_runs(dg.RunsFilter(job_name="nightly"))
    assert fanout.status == dg.DagsterRunStatus.FAILURE and fanout.tags["bodoge/nightly_run"] == nightly.run_id
    assert "bodoge/pid" in fanout.tags  # the next night's recovery can tell whether its process died

    _rerun(data, 4, "--bucket", "03")
    assert _buckets_materialized(data) == {"00", "01", "02", "03"}
    _assert_same_night(_in_buckets(data, tmp_path / "one", 1), data)


def test_a_rerun_of_an_unknown_bucket_is_a_one_line_error(tmp_path: Path) -> None:
    """The rerun names buckets it knows only; an unknown one is a one-line error (exit 2)."""
    env = {**os.environ, **night_environment(Settings(data_dir=tmp_path, discovery_buckets=4))}
    rerun = subprocess.run([sys.executable, "-m", "pipelines.rerun", "--bucket", "07"], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 2 and rerun.stderr.strip().count("\n") == 0 and "no bucket 07" in rerun.stderr
    env["BODOGE_DISCOVERY_BUCKETS"] = "many"
    rerun = subprocess.run([sys.executable, "-m", "pipelines.rerun", "--discovery"], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 2 and rerun.stderr.strip().count("\n") == 0, rerun.stderr
    assert "BODOGE_DISCOVERY_BUCKETS must be a whole number of member buckets" in rerun.stderr
