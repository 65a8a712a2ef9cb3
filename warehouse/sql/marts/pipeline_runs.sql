-- @table marts.pipeline_runs: One row per orchestrator (Dagster) run with its check results, for
--   the dashboard's overview. Written when a run ends (warehouse.model_marts.record_pipeline_run),
--   so the published night holds the runs recorded before it, not its own.
-- @key run_id
-- @column run_id: The Dagster run's id.
-- @column job: The Dagster job's name (e.g. nightly).
-- @column started_at: When the run started (UTC).
-- @column finished_at: When it ended (UTC; the time it was recorded if Dagster has none).
-- @column status: How the run ended, as Dagster reports it (SUCCESS, FAILURE, CANCELED), or
--   INTERRUPTED (its process died).
-- @column n_checks: Asset checks evaluated in the run.
-- @column n_failed_checks: Of those, how many did not pass (any severity).
-- @column checks: Every check's result as JSON: [{name, asset, passed, severity, description}].
CREATE TABLE IF NOT EXISTS marts.pipeline_runs (
    run_id VARCHAR PRIMARY KEY,
    job VARCHAR,
    started_at TIMESTAMPTZ,
    finished_at TIMESTAMPTZ,
    status VARCHAR,
    n_checks INTEGER,
    n_failed_checks INTEGER,
    checks JSON
);
