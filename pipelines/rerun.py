"""Complete a night whose member bucket failed: `python -m pipelines.rerun --bucket KEY …`;
or rank the night's discovery again whole: `python -m pipelines.rerun --discovery`.

Why: a bucket killed or failed (an out-of-memory kill, a lost machine) leaves the other
buckets' files in the night's folder (`warehouse.buckets`), and the writer refuses to append
a night with a bucket missing, so nothing was published. This re-materializes only the named
partitions of `recsys/discovery_buckets` (job `discovery_bucket`, one run each), then runs
what follows the buckets in the nightly job (the writer, the export, the release, delivery,
the backup) once. The same as the Dagster UI's "materialize partition" then "materialize
downstream".

`--discovery` runs `recsys/fitted_champion` and everything after it in one run of the
nightly job (every bucket of the current `BODOGE_DISCOVERY_BUCKETS`), on the night's
interactions, content model and champion choice: how an operator changes the number of
buckets of a published night. Settings come from the environment as for the nightly worker
(`bodoge.jobs.night_environment`, DAGSTER_HOME).
"""

from __future__ import annotations

import argparse
import sys

import dagster as dg

QUIET = {"loggers": {"console": {"config": {"log_level": "INFO"}}}}
"""Dagster's events at INFO, as the nightly worker logs them."""


def rerun_discovery() -> int:
    """The fitted champion, every bucket and everything after them, in one nightly run; 0 when it succeeded."""
    from pipelines.definitions import defs
    from pipelines.defs.recsys.buckets import FITTED_CHAMPION

    d = defs()
    selection = dg.AssetSelection.assets(FITTED_CHAMPION).downstream().required_multi_asset_neighbors()
    keys = list(selection.resolve(d.resolve_asset_graph()))
    with dg.DagsterInstance.get() as instance:
        run = d.resolve_job_def("nightly").execute_in_process(instance=instance, asset_selection=keys,
                                                              raise_on_error=False, run_config=QUIET)
    print(f"rerun: discovery and what follows {'done' if run.success else 'FAILED'} ({run.run_id})",
          file=sys.stderr, flush=True)
    return 0 if run.success else 1


def rerun(buckets: list[str]) -> int:
    """Re-materialize `buckets`, then everything downstream of them; 0 when all succeeded."""
    from pipelines.definitions import defs
    from pipelines.defs.recsys.buckets import BUCKETS, DISCOVERY_BUCKETS

    unknown = [key for key in buckets if key not in BUCKETS.get_partition_keys()]
    if unknown:
        print(f"rerun: no bucket {', '.join(unknown)} (buckets: {', '.join(BUCKETS.get_partition_keys())})",
              file=sys.stderr)
        return 2
    d = defs()
    bucketed = dg.AssetSelection.assets(DISCOVERY_BUCKETS)
    after = bucketed.downstream().required_multi_asset_neighbors() - bucketed  # the writer's every mart
    keys = sorted(after.resolve(d.resolve_asset_graph()), key=lambda key: key.to_user_string())
    with dg.DagsterInstance.get() as instance:
        for key in buckets:
            run = d.resolve_job_def("discovery_bucket").execute_in_process(
                instance=instance, partition_key=key, raise_on_error=False, run_config=QUIET)
            print(f"rerun: bucket {key} {'done' if run.success else 'FAILED'}", file=sys.stderr, flush=True)
            if not run.success:
                return 1
        run = d.resolve_job_def("nightly").execute_in_process(instance=instance, asset_selection=keys,
                                                              raise_on_error=False, run_config=QUIET)
        print(f"rerun: the night after its buckets {'done' if run.success else 'FAILED'} ({run.run_id})",
              file=sys.stderr, flush=True)
    return 0 if run.success else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipelines.rerun", description=__doc__.split("\n")[0])
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--bucket", action="append", help="a bucket's key (00, 01, …); repeatable")
    which.add_argument("--discovery", action="store_true", help="the fit, every bucket and what follows")
    args = parser.parse_args(argv)
    from core.settings import SettingError, read

    try:
        read("discovery_buckets")  # what the definitions read when they load: one line, not a traceback
    except SettingError as exc:
        print(f"rerun: {exc}", file=sys.stderr)
        return 2
    return rerun_discovery() if args.discovery else rerun(args.bucket)


if __name__ == "__main__":
    sys.exit(main())
