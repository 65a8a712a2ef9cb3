"""Every asset that writes takes the nightly lock, whoever starts the run (issue 24).

Here: the tests that run Dagster in this process, build a demo warehouse or site, or talk to a
local HTTP stub; the rest of this subject: tests/unit/test_lock_resource.py.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import dagster as dg
import pytest

from ops.lock import acquire


def test_a_single_asset_materialized_outside_the_nightly_job_waits_for_the_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipelines.definitions import defs

    data = tmp_path / "data"
    warehouse = str(data / "warehouse.duckdb")
    monkeypatch.setenv("BODOGE_DATA_DIR", str(data))  # what the definitions' resources read
    monkeypatch.setenv("BODOGE_WAREHOUSE", warehouse)
    asset = defs().resolve_assets_def(dg.AssetKey(["marts", "play_time_buckets"]))
    held = acquire(data)  # another night, as far as the run can tell
    done: dict[str, object] = {}

    def materialize() -> None:
        with dg.DagsterInstance.ephemeral() as instance:
            result = dg.materialize([asset], instance=instance)  # its own resources, the lock among them
        done["success"], done["at"] = result.success, time.monotonic()

    worker = threading.Thread(target=materialize)
    worker.start()
    time.sleep(2.0)
    assert "success" not in done  # waiting for the lock, not writing
    released = time.monotonic()
    held.release()
    worker.join(timeout=120)
    assert done["success"] is True and done["at"] >= released
