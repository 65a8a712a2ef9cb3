"""Running the nightly Dagster job from the command line (`bodoge run`, `bodoge demo`).

Why through Dagster rather than calling the steps directly: the same asset graph, checks
and metadata run from the CLI, the schedule and the UI, and the runs land in the
instance under DATA_DIR/dagster_home, so `dg dev` shows them afterwards.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bodoge.config import Paths

log = logging.getLogger("bodoge.jobs")


class JobFailed(Exception):
    """The nightly job did not succeed; the message names the failed steps."""


@dataclass(frozen=True, slots=True)
class JobSummary:
    """What a finished nightly run reports."""

    run_id: str
    seconds: float
    steps: list[str] = field(default_factory=list)
    checks: list[dict[str, Any]] = field(default_factory=list)


def dagster_home(paths: Paths) -> Path:
    """The Dagster instance folder for this data directory (shared with `dg dev`)."""
    home = paths.data_dir / "dagster_home"
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    if not config.exists():
        # One writer at a time on the warehouse, whoever starts the run.
        config.write_text(
            "concurrency:\n  pools:\n    default_limit: 1\ntelemetry:\n  enabled: false\n", encoding="utf-8"
        )
    return home


def configure_environment(paths: Paths, base_url: str | None) -> None:
    """Point the Dagster resources (which read the environment) at this run's settings."""
    os.environ["BODOGE_DATA_DIR"] = str(paths.data_dir)
    os.environ["BODOGE_WAREHOUSE"] = str(paths.warehouse)
    if base_url:
        os.environ["BODOGE_BASE_URL"] = base_url
    os.environ["DAGSTER_HOME"] = str(dagster_home(paths))


def run_nightly(paths: Paths, *, base_url: str, push_url: str | None = None) -> JobSummary:
    """Execute the `nightly` job once, in this process, against the persistent instance."""
    configure_environment(paths, base_url)
    if push_url:
        os.environ["BODOGE_PUSH_URL"] = push_url
    else:
        os.environ.pop("BODOGE_PUSH_URL", None)

    import dagster as dg

    from pipelines.definitions import defs

    job = defs().resolve_job_def("nightly")
    started = time.perf_counter()
    with dg.DagsterInstance.get() as instance:
        result = job.execute_in_process(
            instance=instance,
            raise_on_error=False,
            run_config={"loggers": {"console": {"config": {"log_level": "INFO"}}}},
        )
        steps = [e.step_key for e in result.all_events if e.is_step_success and e.step_key]
        failed = [e.step_key for e in result.all_events if e.is_step_failure and e.step_key]
        from pipelines.run_log import log_run

        checks = log_run(instance, result.run_id, str(paths.warehouse))
    if not result.success:
        reasons = _failure_reasons(result) or failed
        raise JobFailed(f"nightly run {result.run_id} failed at {', '.join(reasons) or 'an unknown step'}")
    return JobSummary(run_id=result.run_id, seconds=time.perf_counter() - started, steps=steps, checks=checks)


def _failure_reasons(result: Any) -> list[str]:
    reasons = []
    for event in result.all_events:
        if event.is_step_failure:
            error = getattr(event.event_specific_data, "error", None)
            message = (error.message.strip().splitlines() or [""])[-1] if error else ""
            reasons.append(f"{event.step_key} ({message})" if message else str(event.step_key))
    return reasons
