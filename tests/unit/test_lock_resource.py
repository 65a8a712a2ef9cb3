"""Every asset that writes takes the nightly lock, whoever starts the run (issue 24).

The lock was attached by the nightly job's hooks, so a run started by the automation
sensor (some assets are eager) or the UI's "materialize" skipped it. Now it is a resource
every writing asset requires; this materializes one asset outside the nightly job while
another holder has the lock, and sees it wait for it.
"""

from __future__ import annotations





def test_every_asset_requires_the_lock_and_runs_in_one_process() -> None:
    from pipelines.definitions import defs

    d = defs()
    missing = [sorted(k.to_user_string() for k in a.keys) for a in d.resolve_asset_graph().assets_defs
               if a.keys and "nightly_lock" not in a.required_resource_keys]
    assert not missing, missing
    assert d.resolve_implicit_global_asset_job_def().executor_def.name == "in_process"
