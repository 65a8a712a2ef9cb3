-- marts.pipeline_runs: one row per orchestrator run with its check results, for the
-- dashboard's overview. Written by warehouse.model_marts.record_pipeline_run.
CREATE TABLE IF NOT EXISTS marts.pipeline_runs (
    run_id VARCHAR PRIMARY KEY,
    job VARCHAR,
    started_at TIMESTAMPTZ,
    finished_at TIMESTAMPTZ,
    status VARCHAR,             -- SUCCESS | FAILURE | CANCELED | INTERRUPTED
    n_checks INTEGER,
    n_failed_checks INTEGER,
    checks JSON                 -- [{name, asset, passed, severity, description}]
);
