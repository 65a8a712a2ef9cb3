-- @table marts.pipeline_runs: One row per orchestrator (Dagster) run of the nightly job with its
--   check results, for the dashboard's overview. A night writes its row when it starts (status
--   STARTED; warehouse.nights.start_night), names its export bundle when it releases it, and
--   completes the row when it ends (warehouse.model_marts.record_pipeline_run). The published
--   night therefore holds its own row as STARTED (it is published before its run ends) and the
--   finished rows of the nights before it.
-- @key run_id
-- @join night_id -> marts.nights
-- @column run_id: The Dagster run's id, which is the night's id (night_id) in every other table.
-- @column job: The Dagster job's name (e.g. nightly).
-- @column started_at: When the run started (UTC).
-- @column finished_at: When it ended (UTC; the time it was recorded if Dagster has none); NULL
--   while it runs.
-- @column status: How the run ended, as Dagster reports it (SUCCESS, FAILURE, CANCELED), or
--   INTERRUPTED (its process died); STARTED while it runs.
-- @column n_checks: Asset checks evaluated in the run (NULL while it runs).
-- @column n_failed_checks: Of those, how many did not pass (any severity).
-- @column checks: Every check's result as JSON: [{name, asset, passed, severity, description}].
-- @column night_id: The night (marts.nights.night_id): the same as run_id, under the name every
--   table of a night shares.
-- @column export_run_id: The export bundle the night released (exports/<export_run_id>/, the
--   run_id of its marts.recommendations); NULL when it released none.
CREATE TABLE IF NOT EXISTS marts.pipeline_runs (
    run_id VARCHAR PRIMARY KEY,
    job VARCHAR,
    started_at TIMESTAMPTZ,
    finished_at TIMESTAMPTZ,
    status VARCHAR,
    n_checks INTEGER,
    n_failed_checks INTEGER,
    checks JSON,
    night_id VARCHAR,
    export_run_id VARCHAR
);
