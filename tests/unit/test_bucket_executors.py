"""How the member buckets run: the executor BODOGE_BUCKET_EXECUTOR names and its config.

The runs themselves (a step per bucket in processes of their own, one killed with SIGKILL and
re-run alone) are in tests/e2e/test_buckets_night.py; here the choices, without a run.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import dagster as dg
import pytest
from dagster._config import process_config

from core.settings import SettingError
from pipelines.defs.recsys.fanout import JOB_NAME, executor_config, executor_for, fanout_job

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def test_the_default_is_dagsters_multiprocess_executor_with_one_process_per_core() -> None:
    assert executor_for("multiprocess") is dg.multiprocess_executor
    config = executor_config("multiprocess", 0, None)["config"]
    assert config["max_concurrent"] == os.cpu_count()
    assert executor_config("multiprocess", 3, None)["config"]["max_concurrent"] == 3
    # the bucket steps are forks of one server that imported the ranking once
    assert "pipelines.defs.recsys.fanout" in config["start_method"]["forkserver"]["preload_modules"]
    checked = process_config(dg.multiprocess_executor.config_schema.config_type, config)  # Dagster's own schema
    assert checked.success, checked.errors


def test_the_fanout_is_a_step_per_bucket(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BODOGE_BUCKET_EXECUTOR", "multiprocess")
    job = fanout_job()
    assert job.name == JOB_NAME and job.executor_def is dg.multiprocess_executor
    assert sorted(node.name for node in job.nodes) == ["bucket_keys", "buckets_ranked", "ranked_bucket"]
    assert job.graph.node_named("bucket_keys").definition.output_defs[0].is_dynamic
    # the bucket steps take no lock and open no warehouse: the night's run holds both
    assert job.graph.node_named("ranked_bucket").definition.required_resource_keys == {"site"}


@pytest.mark.parametrize(("kind", "package"), [("docker", "dagster_docker"), ("k8s", "dagster_k8s")])
def test_docker_and_k8s_import_their_package_only_when_chosen(kind: str, package: str) -> None:
    if importlib.util.find_spec(package) is not None:
        assert executor_for(kind).name == kind if kind == "docker" else executor_for(kind).name == "k8s"
        return
    with pytest.raises(SettingError) as said:
        executor_for(kind)
    line = str(said.value)
    assert "\n" not in line and package.replace("_", "-") in line and f"BODOGE_BUCKET_EXECUTOR={kind}" in line


@pytest.mark.parametrize("kind", ["docker", "k8s"])
def test_the_deploy_forms_config_reaches_the_executor_with_the_workers_limit(kind: str) -> None:
    config = executor_config(kind, 2, DEPLOY / f"bucket-executor.{kind}.yaml")["config"]
    assert config["max_concurrent"] == 2
    assert ("image" if kind == "docker" else "job_image") in config


def test_an_executor_config_that_is_no_mapping_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "executor.yaml"
    bad.write_text("- image\n", encoding="utf-8")
    with pytest.raises(SettingError, match="must hold a mapping"):
        executor_config("docker", 0, bad)
