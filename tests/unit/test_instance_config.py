"""The instance's dagster.yaml: SQLite by default, PostgreSQL when asked, the operator's file never touched.

Here: the tests that need no process, no socket and no Dagster run; the rest of this subject:
tests/e2e/test_instance_config.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pipelines.instance import LEGACY, MARKER, PG_URL_ENV, InstanceConfigError, configure, safe_url


def test_sqlite_is_the_default_and_an_old_bodoge_file_is_recognised_as_bodoges(tmp_path: Path) -> None:
    storage = configure(tmp_path / "home", {})
    text = (tmp_path / "home" / "dagster.yaml").read_text(encoding="utf-8")
    assert storage.kind == "SQLite" and storage.owner == "bodoge"
    assert text.startswith(MARKER) and "default_limit: 1" in text and "storage:" not in text
    legacy = tmp_path / "old" / "dagster.yaml"
    legacy.parent.mkdir()
    legacy.write_text(LEGACY, encoding="utf-8")  # what bodoge wrote before this module
    assert configure(legacy.parent, {}).owner == "bodoge"
    assert legacy.read_text(encoding="utf-8").startswith(MARKER)
    import dagster as dg

    with dg.DagsterInstance.from_config(str(tmp_path / "home")) as instance:  # what the daemon reads
        assert instance.run_monitoring_enabled
        assert instance.run_monitoring_max_runtime_seconds == 4 * 24 * 3600
        assert instance.run_monitoring_settings["free_slots_after_run_end_seconds"] == 60


@pytest.mark.parametrize("url, expected", [
    ("mysql://u:pw@h/db", "not a postgresql://"),
    ("postgresql://u:pw@127.0.0.1:5432", "not a postgresql://"),
])
def test_a_bad_url_is_refused_without_its_password(tmp_path: Path, url: str, expected: str) -> None:
    with pytest.raises(InstanceConfigError, match=expected) as err:
        configure(tmp_path / "home", {PG_URL_ENV: url})
    assert "pw" not in str(err.value)
    assert safe_url("postgresql://a%40b:p%3Aw@db.example:6543/d") == "postgresql://a@b@db.example:6543/d"
