"""A published night the API tests may change: a copy of the session's demo night, a second
night published by the real release code, and a real `bodoge api` process.

Why a copy: the session's demo night (`tests.support.demo_night`) is read by other files at
the same time; a test that writes the erasure journal or publishes a night works on its own.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
import httpx
import orjson

from tests.support.serve_process import free_port

PARTS = ("published.duckdb", "warehouse.duckdb", "exports", "models")


def copy_night(source: Path, target: Path) -> Path:
    """The parts of a data directory the API and a release read, copied."""
    target.mkdir(parents=True, exist_ok=True)
    for part in PARTS:
        path = source / part
        if path.is_dir():
            shutil.copytree(path, target / part, symlinks=True)
        else:
            shutil.copy2(path, target / part)
            (target / part).chmod(0o644)
    return target


def lines(data_dir: Path, file: str = "recommendations.jsonl", key: str = "user_id") -> dict[str, dict]:
    """The LATEST bundle's lines of `file` by key."""
    bundle = data_dir / "exports" / (data_dir / "exports" / "LATEST").read_text().strip()
    found = {}
    with open(bundle / file, "rb") as stream:
        for line in stream:
            row = orjson.loads(line)
            found[row[key]] = row
    return found


def publish_second_night(data_dir: Path, night_id: str = "second-night") -> str:
    """Publish another night from the copy's warehouse through the real export and release:
    every member's list reversed (so the two nights' answers differ). Returns its bundle."""
    from warehouse.release.export import export_bundle
    from warehouse.release.release import release_night

    with duckdb.connect(str(data_dir / "warehouse.duckdb")) as con:
        run = f"{night_id}-run"
        for table in ("recommendations", "next_to_play", "watch_next"):
            con.execute(f"""UPDATE marts.{table} t SET rank = m.n + 1 - t.rank, run_id = ?
                            FROM (SELECT user_id, max(rank) AS n FROM marts.{table} GROUP BY 1) m
                            WHERE m.user_id = t.user_id""", [run])
        bundle = export_bundle(con, data_dir / "exports", keep=7)
        release_night(con, data_dir, run_id=night_id, bundle_run_id=bundle.run_id, keep=7)
    return bundle.run_id


@contextmanager
def api_process(data_dir: Path, *, env: dict[str, str] | None = None,
                args: tuple[str, ...] = ()) -> Iterator[tuple[subprocess.Popen, str]]:
    """A real `bodoge api` on a free loopback port, ready (its /readyz says 200); SIGTERM after."""
    port = free_port()
    output = open(data_dir.parent / f"api-{port}.log", "w+b")  # a file: a full pipe would stall the service
    process = subprocess.Popen(
        [sys.executable, "-m", "bodoge.cli", "api", "--data-dir", str(data_dir), "--port", str(port), *args],
        stdout=output, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})},
        start_new_session=True)
    process.output = output  # type: ignore[attr-defined]
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise AssertionError(f"bodoge api exited {process.returncode}: {read_output(process)}")
            try:
                if httpx.get(url + "/readyz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError("bodoge api was not ready in 60 s")
            time.sleep(0.1)
        yield process, url
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        output.close()


def read_output(process: subprocess.Popen) -> str:
    """What the `api_process` printed so far."""
    process.output.flush()  # type: ignore[attr-defined]
    process.output.seek(0)  # type: ignore[attr-defined]
    return process.output.read().decode(errors="replace")  # type: ignore[attr-defined]
