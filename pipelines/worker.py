"""The nightly run's worker process: `python -m pipelines.worker --result FILE`.

Why a process of its own: `bodoge run` supervises it. Everything Dagster prints (and any
stack trace) goes to the night's log file, not the terminal; the supervisor forwards
SIGTERM/Ctrl-C to it and still exits with the right code; and if the worker dies (kill -9,
OOM) the supervisor still says so in one line. The worker writes a small JSON result
(run id, steps, checks, and the root cause of a failure) that the supervisor reads back.

Settings come from the environment the supervisor sets (`bodoge.jobs.night_environment`:
every `core.settings` field, and DAGSTER_HOME), read as for the daemon's runs.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import dagster as dg

from core.settings import Settings
from ops.children import RESULT_PREFIX, die_with_parent
from ops.procs import identity

from pipelines.recovery import PID_TAG
from pipelines.instance import describe
from pipelines.run_guard import recover, say_progress
from pipelines.run_log import log_run_safely


def root_cause(error: Any) -> str:
    """The innermost cause of a Dagster error, as one line without the exception's module path."""
    while getattr(error, "cause", None) is not None:
        error = error.cause
    message = (getattr(error, "message", "") or "").strip()
    first = message.splitlines()[0] if message else (getattr(error, "cls_name", None) or "unknown error")
    cls = getattr(error, "cls_name", None)
    for prefix in (f"{cls}: ",) if cls else ():
        idx = first.find(prefix)
        if idx >= 0:
            first = first[idx + len(prefix):]
    return first.strip() or (cls or "unknown error")


def failure_of(result: Any, checks: list[dict]) -> dict | None:
    """The first failed step and its root cause; a failed blocking check names itself."""
    for event in result.all_events:
        if event.is_step_failure:
            error = getattr(event.event_specific_data, "error", None)
            cause = root_cause(error) if error else "failed"
            failed_checks = [c for c in checks if not c["passed"] and c["severity"] == "ERROR"]
            if failed_checks and "blocking" in cause.lower():
                first = failed_checks[0]
                cause = f"blocking check {first['name']} failed: {first['description'] or 'see the log'}"
            return {"step": event.step_key, "cause": cause}
    if not result.success:
        return {"step": None, "cause": "the run did not succeed (no step failed: interrupted?)"}
    return None


def run(result_path: Path) -> int:
    """Recover dead runs, execute the nightly job in this process, write the result file."""
    from pipelines.definitions import defs

    paths = Settings.from_env().paths  # what the supervisor wrote (bodoge.jobs.night_environment)
    job = defs().resolve_job_def("nightly")
    with dg.DagsterInstance.get() as instance:
        say_progress(f"Dagster instance {describe(instance)}")
        recovered = recover(instance, str(paths.warehouse), data_dir=paths.data_dir)
        outcome: dict[str, Any] = {"run_id": None, "success": False, "recovered": [r.run_id for r in recovered]}
        try:
            result = job.execute_in_process(
                instance=instance,
                raise_on_error=False,
                tags={PID_TAG: identity()},
                run_config={"loggers": {"console": {"config": {"log_level": "INFO"}}}},
            )
        except KeyboardInterrupt:
            outcome["failure"] = {"step": None, "cause": "interrupted"}
            _write(result_path, outcome)
            return 130
        checks = log_run_safely(instance, result.run_id, str(paths.warehouse))
        outcome.update(
            run_id=result.run_id,
            success=result.success,
            steps=[e.step_key for e in result.all_events if e.is_step_success and e.step_key],
            checks=checks,
            failure=failure_of(result, checks),
        )
    _write(result_path, outcome)
    return 0 if outcome["success"] else 1


def _write(path: Path, outcome: dict) -> None:
    """The outcome into the result file; on the output as one line when the file cannot be
    written (a full disk): the supervisor still learns the step and the cause."""
    text = json.dumps(outcome, ensure_ascii=False, default=str)
    tmp = path.with_suffix(".tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        print(RESULT_PREFIX + text, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipelines.worker")
    parser.add_argument("--result", required=True, help="where to write the run's outcome (JSON)")
    parser.add_argument("--parent-pid", type=int, help="the supervisor: this worker stops when it dies")
    args = parser.parse_args(argv)
    if args.parent_pid:
        die_with_parent(parent_pid=args.parent_pid)
    return run(Path(args.result))


if __name__ == "__main__":
    sys.exit(main())
