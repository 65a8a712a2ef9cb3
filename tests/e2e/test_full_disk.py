"""A full disk during the night is a failed night like any other: exit 1, one line, one alert.

Why a real full filesystem: the supervisor's own log write raised ENOSPC out of `bodoge run`
(exit 2, `bodoge: error: [Errno 28] …`, no alert, an empty log). Only a disk that really
fills shows every write of the night meeting it at once: the worker's result file, Dagster's
SQLite instance, DuckDB, the log, the alert's claim. The data directory is a small tmpfs this
test mounts and removes (it needs CAP_SYS_ADMIN: root, or skipped with the reason); it is
filled, byte for byte, after the crawl and the models, as the export begins (held there by the
release's test hook, `BODOGE_TEST_PAUSE_AT=export`, so no night is fast enough to finish first).
"""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from warehouse.release.pause import PAUSE_ENV

from tests.support.http_stubs import Receiver
from tests.support.nightly_process import NightlyProcess, one_error_line, wait_until_gone
from tests.support.nightly_process import site, site_url  # noqa: F401 - module-scoped fixtures

SIZE = "160m"  # a night of the small site takes about 35 MB


@pytest.fixture()
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A tmpfs of SIZE at tmp_path/data, unmounted afterwards; skipped where it cannot be mounted."""
    mount = tmp_path / "data"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={SIZE},mode=0755", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs for a real full disk here: {made.stderr.strip() or made.returncode}")
    try:
        yield mount
    finally:
        wait_until_gone(str(mount), timeout=30)
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def fill(disk: Path) -> Path:
    """Write a file until the filesystem refuses another byte (ENOSPC); returns it."""
    filler = disk / "filler"
    chunk = b"\0" * (1 << 20)
    with open(filler, "wb", buffering=0) as out:
        try:
            while True:
                out.write(chunk)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc
        try:
            while True:  # the last partial megabyte too
                out.write(b"\0" * 4096)
        except OSError:
            pass
    return filler


def test_a_disk_that_fills_during_the_export_fails_the_night_with_one_line_and_one_alert(
        small_disk: Path, site_url: str) -> None:  # noqa: F811
    receiver = Receiver()
    try:
        # Held where the export begins (the release's test hook), so the disk is full before
        # the export writes a byte, however fast the night is.
        night = NightlyProcess(small_disk, site_url, "--alert-url", receiver.url,
                               env={PAUSE_ENV: "export"})
        night.wait_for(lambda line: line.startswith("nightly: paused at export"), timeout=300)
        filler = fill(small_disk)
        (small_disk / "paused-at-export").unlink()
        code, lines = night.finish(timeout=300)
        last = one_error_line(lines)
        assert code == 1, "\n".join(lines[-8:])
        assert "failed" in last and "nothing was published" in last, last
        assert "No space left on device" in last or "disk is full" in last, last
        assert len(receiver.bodies) == 1, receiver.bodies
        alert = receiver.bodies[0]
        assert alert["kind"] == "night_failed" and alert["cause"] in last
        log = Path(alert["log_path"])
        assert log.stat().st_size > 0  # the lines written before the disk filled are there
        assert "done discovery" in log.read_text(encoding="utf-8")

        # Space again: the next night starts cleanly and publishes.
        filler.unlink()
        code, lines = NightlyProcess(small_disk, site_url).finish(timeout=300)
        assert code == 0, "\n".join(lines[-10:])
        assert not list(small_disk.glob(".published.duckdb.*"))  # no litter of the failed night
    finally:
        receiver.close()
        os.sync()
