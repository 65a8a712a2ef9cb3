"""The discovery stage's member buckets as processes of their own, beside today's one process.

Why: the scale benchmark's discovery stage ranks the buckets in turn in one process (the
nightly job's range step, blocks on two threads), so its peak is everyone's; the way out of
one machine (issue 43, docs/scaling.md) runs one process per bucket, one per core, as
Dagster's multiprocess executor does. This measures that on the same night: after the fit
has saved the champion (``DATA_DIR/models/champion/``), each bucket is a fresh Python
process (``python -m benchmarks.scale_buckets --bucket K``) that loads the saved model
(``store.load_state``), reads what the Dagster bucket step reads (``warehouse.bucket_inputs``, from the warehouse itself)
and ranks and writes its bucket through the same dagster-free function
(``models.discovery.buckets.bucket_frames``, ``warehouse.buckets.write_bucket``), into a
folder of its own (the night's tables are not touched). Then one writer appends every
bucket's files into a scratch DuckDB file (``append_buckets``, as the night's writer does),
and the rows are checked against the night's marts (the same lists, by a hash of every row).

Memory, two ways: each bucket process's peak is ``ru_maxrss`` from ``wait4`` (the kernel's
high-water mark of that process, VmHWM); the night's peak while the buckets run is the
largest sum of the live processes' ``VmRSS`` (``/proc/<pid>/status``), sampled every 0.1 s,
and, as a bound the sampling cannot miss, the sum of the ``workers`` largest bucket peaks.
Each process also reports its RSS after each of its steps (loaded, inputs, ranked,
written), the profile of what a bucket holds.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

FOLDER = "bucket-processes"
"""Under the work dir: the bucket processes' files and reports (removed once measured)."""


def rss_mb(pid: int | str = "self", field: str = "VmRSS") -> float:
    """A process's resident memory (``field`` of ``/proc/<pid>/status``: VmRSS now, VmHWM its
    peak) in MB; 0 when the process is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text(encoding="ascii").splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def rank_one(work: Path, bucket: int, n_buckets: int) -> dict[str, Any]:
    """In a bucket process: rank and write bucket ``bucket`` of the night saved under ``work``,
    as the Dagster bucket step does; its seconds and RSS after each step."""
    import duckdb

    from models.discovery.buckets import bucket_frames, bucket_keys, bucket_of
    from models.discovery.store import load_state
    from warehouse.bucket_inputs import read_warehouse
    from warehouse.buckets import night_folder, write_bucket

    profile: dict[str, float] = {"start": rss_mb()}
    seconds: dict[str, float] = {}
    tick = time.perf_counter()
    state, meta = load_state(work / "models" / "champion")
    seconds["load"], profile["loaded"] = time.perf_counter() - tick, rss_mb()
    tick = time.perf_counter()
    with duckdb.connect(str(work / "warehouse.duckdb"), read_only=True) as con:
        inputs = read_warehouse(con, keep=lambda user: bucket_of(user, n_buckets) == bucket)
    seconds["inputs"], profile["inputs"] = time.perf_counter() - tick, rss_mb()
    tick = time.perf_counter()
    frames, lists = bucket_frames(state, meta, bucket=bucket, n_buckets=n_buckets, members=inputs.members,
                                  hints=inputs.hints, site_rows=inputs.site_rows)
    seconds["rank"], profile["ranked"] = time.perf_counter() - tick, rss_mb()
    tick = time.perf_counter()
    write_bucket(night_folder(work / FOLDER, meta["run_id"]), bucket_keys(n_buckets)[bucket], frames)
    seconds["write"], profile["written"] = time.perf_counter() - tick, rss_mb()
    return {"bucket": bucket, "run_id": meta["run_id"], "members": lists.stats["n_users"],
            "rows": frames["recommendations"].height, "seconds": {k: round(v, 3) for k, v in seconds.items()},
            "rss_mb": {k: round(v, 1) for k, v in profile.items()}}


class _Sampler(threading.Thread):
    """Sums the live bucket processes' VmRSS every ``interval`` seconds; keeps the largest sum."""

    def __init__(self, interval: float = 0.1) -> None:
        super().__init__(daemon=True)
        self.pids: set[int] = set()
        self.peak_mb = 0.0
        self.interval = interval
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(self.interval):
            self.peak_mb = max(self.peak_mb, sum(rss_mb(pid) for pid in list(self.pids)))


def run_buckets(work: Path, n_buckets: int, env: dict[str, str], *, workers: int | None = None) -> dict[str, Any]:
    """Every bucket in a process of its own, at most ``workers`` (default: the cores) at once;
    each one's report with its peak RSS, the wall seconds of them all and the peaks together."""
    workers = max(1, min(workers or os.cpu_count() or 1, n_buckets))
    out = work / FOLDER
    out.mkdir(parents=True, exist_ok=True)
    sampler = _Sampler()
    sampler.start()
    pending = list(range(n_buckets))
    running: dict[int, tuple[int, float, subprocess.Popen]] = {}  # the Popen kept: see below
    done: dict[int, dict[str, Any]] = {}
    started = time.perf_counter()
    while pending or running:
        while pending and len(running) < workers:
            bucket = pending.pop(0)
            cmd = [sys.executable, "-m", "benchmarks.scale_buckets", "--bucket", str(bucket), "--buckets",
                   str(n_buckets), "--work-dir", str(work)]
            proc = subprocess.Popen(cmd, env=env, stdout=sys.stderr)
            # Referenced until reaped here: a Popen dropped while its process runs goes on
            # subprocess's list of children to reap, and the next Popen reaps it (without its
            # rusage), so this wait4 saw "No child processes" once a bucket ended early.
            running[proc.pid] = (bucket, time.perf_counter(), proc)
            sampler.pids.add(proc.pid)
        pid, status, usage = os.wait4(-1, 0)
        if pid not in running:
            continue
        bucket, began, proc = running.pop(pid)
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped: the Popen must not wait for it again
        sampler.pids.discard(pid)
        if proc.returncode != 0:
            raise SystemExit(f"scale: bucket process {bucket} failed (exit {proc.returncode})")
        report = json.loads((out / f"bucket-{bucket:02d}.json").read_text(encoding="utf-8"))
        done[bucket] = {**report, "wall_seconds": round(time.perf_counter() - began, 2),
                        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1)}
    wall = time.perf_counter() - started
    sampler.done.set()
    sampler.join()
    buckets = [done[k] for k in sorted(done)]
    peaks = sorted((b["peak_rss_mb"] for b in buckets), reverse=True)
    return {"workers": workers, "wall_seconds": round(wall, 2), "buckets": buckets,
            "max_bucket_peak_rss_mb": peaks[0], "concurrent_peak_rss_mb": round(sampler.peak_mb, 1),
            "concurrent_peak_bound_mb": round(sum(peaks[:workers]), 1),
            "write_seconds": round(sum(b["seconds"]["write"] for b in buckets), 2),
            "members_per_second": round(sum(b["members"] for b in buckets) / wall, 1) if wall > 0 else None}


def append_and_compare(work: Path, n_buckets: int) -> dict[str, Any]:
    """Append the bucket processes' files into a scratch DuckDB file as the night's writer
    does (timed), and compare them with the night's marts: the same rows, bit for bit (a
    hash of every row, ordered, and the counts). Removes the files and the scratch file."""
    import shutil

    import duckdb

    from models.discovery.buckets import bucket_keys
    from warehouse.buckets import BUCKET_TABLES, append_buckets, night_folder, write_similar

    run_id = json.loads((work / FOLDER / "bucket-00.json").read_text(encoding="utf-8"))["run_id"]
    folder = night_folder(work / FOLDER, run_id)
    scratch = work / FOLDER / "appended.duckdb"
    scratch.unlink(missing_ok=True)
    same: dict[str, bool] = {}
    try:
        with duckdb.connect(str(work / "warehouse.duckdb"), read_only=True) as night:
            # the night's similar games, which the fit writes once (no bucket's), so the writer has all it needs
            write_similar(folder, night.sql("SELECT * EXCLUDE (night_id) FROM marts.similar_games").pl())
            digests = {t: _digest(night, f"marts.{t}") for t in BUCKET_TABLES}
        with duckdb.connect(str(scratch)) as con:
            con.execute("CREATE SCHEMA IF NOT EXISTS marts")
            tick = time.perf_counter()
            counts = append_buckets(con, folder, bucket_keys(n_buckets), night_id="bucket-processes")
            seconds = time.perf_counter() - tick
            for table in BUCKET_TABLES:
                same[table] = _digest(con, f"marts.{table}") == digests[table]
    finally:
        shutil.rmtree(work / FOLDER, ignore_errors=True)  # members' lists: kept no longer than measured
    return {"append_seconds": round(seconds, 2), "rows": counts, "same_lists": same}


def _digest(con: Any, table: str) -> tuple[Any, ...]:
    """A table's row count and the XOR of a hash of each row's columns but ``night_id``
    (the night's own id): equal for the same rows, in any order (rows are keyed by member and rank)."""
    columns = [c for c in con.sql(f"SELECT * FROM {table} LIMIT 0").columns if c != "night_id"]
    quoted = ", ".join(f'"{c}"' for c in columns)
    found = con.execute(f"SELECT count(*), bit_xor(hash({quoted})) FROM {table}").fetchone()
    return tuple(found) + (tuple(columns),)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="one bucket process of benchmarks.scale")
    parser.add_argument("--bucket", type=int, required=True)
    parser.add_argument("--buckets", type=int, required=True)
    parser.add_argument("--work-dir", type=Path, required=True)
    args = parser.parse_args(argv)
    if not 0 <= args.bucket < args.buckets or not (args.work_dir / "models" / "champion").is_dir():
        parser.error("--bucket K of --buckets N, on a --work-dir whose night saved its champion")
    # the environment (warehouse, data dir, one BLAS thread) is the benchmark's, handed down by run_buckets
    report = rank_one(args.work_dir, args.bucket, args.buckets)
    (args.work_dir / FOLDER / f"bucket-{args.bucket:02d}.json").write_text(json.dumps(report), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
