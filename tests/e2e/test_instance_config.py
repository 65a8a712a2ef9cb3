"""The instance's dagster.yaml: SQLite by default, PostgreSQL when asked, the operator's file never touched.

Real files, a real PostgreSQL server (tests/support/postgres_server.py) where a connection
matters, and real `bodoge serve` processes for the one-line errors.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipelines.instance import PG_URL_ENV, InstanceConfigError, configure
from tests.support.postgres_server import PASSWORD, postgres_server
from tests.support.serve_process import free_port


@pytest.fixture(scope="module")
def pg():
    with postgres_server() as server:
        yield server


def closed_url() -> str:
    return f"postgresql://bodoge:{PASSWORD}@127.0.0.1:{free_port()}/dagster"


def test_a_sqlite_instance_switches_to_postgres_said_once_and_the_password_never_lands_on_disk(tmp_path: Path, pg) -> None:
    import dagster as dg

    home = tmp_path / "home"
    configure(home, {})
    with dg.DagsterInstance.from_config(str(home)) as instance:  # a SQLite history exists
        instance.get_runs(limit=1)
    url = pg.create_database("switch")
    first = configure(home, {PG_URL_ENV: url})
    again = configure(home, {PG_URL_ENV: url})
    assert first.kind == "PostgreSQL" and first.switched and "switched from SQLite" in str(first)
    assert not again.switched and "switched" not in str(again)
    text = (home / "dagster.yaml").read_text(encoding="utf-8")
    assert f"env: {PG_URL_ENV}" in text and PASSWORD not in text
    assert PASSWORD not in str(first) and "bodoge@127.0.0.1" in str(first)
    with pytest.raises(InstanceConfigError, match="delete that file to go back to SQLite"):
        configure(home, {})  # a lost environment file must not fork the history
    assert f"env: {PG_URL_ENV}" in (home / "dagster.yaml").read_text(encoding="utf-8")


def test_the_operators_own_file_wins_and_a_contradiction_is_refused(tmp_path: Path, pg) -> None:
    home = tmp_path / "home"
    home.mkdir()
    mine = "# mine\nstorage:\n  sqlite:\n    base_dir: /somewhere\ntelemetry:\n  enabled: false\n"
    (home / "dagster.yaml").write_text(mine, encoding="utf-8")
    assert configure(home, {}).owner == "operator"
    with pytest.raises(InstanceConfigError, match="the operator's own, never rewritten"):
        configure(home, {PG_URL_ENV: pg.url("postgres")})
    assert (home / "dagster.yaml").read_text(encoding="utf-8") == mine
    pg.create_database("fields")
    fields = ("storage:\n  postgres:\n    postgres_db:\n      username: bodoge\n      password:\n"
              "        env: MY_PG_PASSWORD\n      hostname: 127.0.0.1\n      db_name: fields\n"
              f"      port: {pg.port}\n")
    (home / "dagster.yaml").write_text(fields, encoding="utf-8")
    with pytest.raises(InstanceConfigError, match="MY_PG_PASSWORD, which is not set"):
        configure(home, {})
    storage = configure(home, {"MY_PG_PASSWORD": PASSWORD})
    assert (storage.kind, storage.owner) == ("PostgreSQL", "operator")
    assert storage.where == f"postgresql://bodoge@127.0.0.1:{pg.port}/fields"
    assert (home / "dagster.yaml").read_text(encoding="utf-8") == fields


def test_serve_on_an_unreachable_postgres_is_one_line_without_the_password(tmp_path: Path) -> None:
    env = {**os.environ, PG_URL_ENV: closed_url()}
    run = subprocess.run([sys.executable, "-m", "bodoge.cli", "serve", "--data-dir", str(tmp_path / "d"),
                          "--base-url", "http://127.0.0.1:9"], capture_output=True, text=True, timeout=60, env=env)
    assert run.returncode == 2, run.stderr
    assert run.stderr.count("\n") == 1 and "cannot reach the Dagster instance's PostgreSQL" in run.stderr
    assert "bodoge@127.0.0.1" in run.stderr and PASSWORD not in run.stderr + run.stdout
    assert not (tmp_path / "d" / "dagster_home" / "dagster.yaml").exists()
