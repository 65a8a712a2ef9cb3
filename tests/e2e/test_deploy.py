"""The shipped deployments: the systemd unit, and Docker Compose with its image and instance.

Here: the tests that start real processes; the rest of this subject: tests/unit/test_deploy.py.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from pipelines.instance import PG_URL_ENV

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
UNIT = DEPLOY / "bodoge.service"
INSTALL_DIR = "/opt/bodoge-pipeline"  # where the unit expects the checkout


def verify_unit(text: str) -> str:
    """`systemd-analyze verify` of the unit (installed here as the repository), its complaints.

    Why the path swap: verify checks that ExecStart's program exists; the repository's own
    .venv/bin/bodoge stands in for the operator's /opt/bodoge-pipeline checkout.
    """
    with tempfile.TemporaryDirectory() as tmp:
        unit = Path(tmp) / "bodoge.service"
        unit.write_text(text.replace(INSTALL_DIR, str(REPO)), encoding="utf-8")
        done = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
        complaints = [ln for ln in (done.stdout + done.stderr).splitlines() if "bodoge.service" in ln]
        return "\n".join(complaints) or ("" if done.returncode == 0 else done.stderr.strip())


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not on this machine")
def test_the_unit_verifies_and_a_typo_would_not() -> None:
    text = UNIT.read_text(encoding="utf-8")
    assert (REPO / ".venv" / "bin" / "bodoge").exists(), "run the tests through uv run --locked"
    assert verify_unit(text) == ""
    broken = verify_unit(text.replace("Restart=on-failure", "Restart=onfailure"))
    assert "restart specifier" in broken  # verify is a real check: it catches what systemd would ignore


def test_docker_compose_config_accepts_the_file() -> None:
    docker = shutil.which("docker")
    if docker is None:
        pytest.skip("no docker CLI on this machine")
    probe = subprocess.run([docker, "compose", "version"], capture_output=True, text=True, timeout=60)
    if probe.returncode != 0:
        pytest.skip(f"docker has no compose plugin here: {(probe.stderr or probe.stdout).strip().splitlines()[0]}")
    env = {"PATH": "/usr/bin:/bin:/usr/local/bin", "BODOGE_PG_PASSWORD": "pw-for-config"}
    done = subprocess.run([docker, "compose", "-f", str(DEPLOY / "docker-compose.yml"), "config", "--format", "json"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    import json

    resolved = json.loads(done.stdout)
    assert resolved["services"]["code"]["environment"][PG_URL_ENV].startswith("postgresql://bodoge:pw-for-config@")


@pytest.fixture(scope="module")
def pg():
    from tests.support.postgres_server import postgres_server

    with postgres_server() as server:
        yield server


def test_the_compose_instance_loads_in_dagster_with_everything_in_postgres(tmp_path: Path, pg,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import dagster as dg

    home = tmp_path / "dagster_home"
    home.mkdir()
    shutil.copy(DEPLOY / "dagster.yaml", home / "dagster.yaml")
    monkeypatch.setenv(PG_URL_ENV, pg.create_database("compose"))
    with dg.DagsterInstance.from_config(str(home)) as instance:
        instance.get_runs(limit=1)
        kinds = {type(s).__name__ for s in (instance.run_storage, instance.event_log_storage,
                                            instance.schedule_storage)}
        assert kinds == {"PostgresRunStorage", "PostgresEventLogStorage", "PostgresScheduleStorage"}
        assert type(instance.run_launcher).__name__ == "DefaultRunLauncher"
        assert type(instance.run_coordinator).__name__ == "QueuedRunCoordinator"
        assert instance.global_op_concurrency_default_limit == 1
        assert instance.run_monitoring_enabled and instance.run_monitoring_max_runtime_seconds == 345600
        assert instance.run_monitoring_settings["free_slots_after_run_end_seconds"] == 60
    tables = {t for (t,) in pg.query("compose", "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
    assert {"runs", "event_logs", "concurrency_limits", "concurrency_slots", "jobs"} <= tables


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not on this machine")
def test_the_api_unit_verifies() -> None:
    """deploy/bodoge-api.service: systemd accepts it; it reads the data directory only."""
    text = (DEPLOY / "bodoge-api.service").read_text(encoding="utf-8")
    assert verify_unit(text) == ""
    assert "ReadOnlyPaths=/var/lib/bodoge" in text and "bodoge api " in text
    assert "restart specifier" in verify_unit(text.replace("Restart=on-failure", "Restart=onfailure"))
