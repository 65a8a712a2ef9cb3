-- @table marts.nights: One row per nightly run with the ids of everything it wrote, joined by its
--   night_id (the Dagster run's id): its crawl (raw.crawl_runs), its training run (marts.model_runs,
--   whose run_id is also that of marts.recommendations, marts.similar_games and the export bundle)
--   and the bundle it released. A view over marts.pipeline_runs (which holds a row from the
--   night's start), raw.crawl_runs and marts.model_runs; nights from before night ids show only
--   their run. Oldest first.
-- @key night_id
-- @join night_id -> marts.pipeline_runs(run_id)
-- @join crawl_run_id -> raw.crawl_runs(run_id)
-- @join model_run_id -> marts.model_runs(run_id)
-- @column night_id: The night's id: the Dagster run's id (marts.pipeline_runs.run_id,
--   marts.publication.run_id), carried as night_id by raw.crawl_runs, marts.model_runs,
--   marts.recommendations, marts.similar_games and marts.recommendation_runs.
-- @column started_at: When the night started (UTC).
-- @column finished_at: When it ended (UTC); NULL while it runs, as in the published night's own row.
-- @column status: STARTED while it runs, then SUCCESS, FAILURE, CANCELED or INTERRUPTED
--   (marts.pipeline_runs.status).
-- @column crawl_run_id: The night's crawl (raw.crawl_runs.run_id); NULL when it did not get that
--   far.
-- @column crawl_status: How that crawl ended (raw.crawl_runs.status).
-- @column model_run_id: The night's training run (marts.model_runs.run_id); NULL when it did not
--   get that far.
-- @column export_run_id: The export bundle the night released (exports/<export_run_id>/; the
--   same id as model_run_id); NULL when it released none.
CREATE OR REPLACE VIEW marts.nights AS
WITH runs AS (
    SELECT run_id AS night_id, started_at, finished_at, status, export_run_id
    FROM marts.pipeline_runs
),
crawls AS (
    SELECT night_id, arg_max(run_id, started_at) AS crawl_run_id, arg_max(status, started_at) AS crawl_status
    FROM raw.crawl_runs
    WHERE night_id IS NOT NULL
    GROUP BY night_id
),
models AS (
    SELECT night_id, max(run_id) AS model_run_id
    FROM marts.model_runs
    WHERE night_id IS NOT NULL
    GROUP BY night_id
)
SELECT runs.night_id, runs.started_at, runs.finished_at, runs.status,
       crawls.crawl_run_id, crawls.crawl_status, models.model_run_id, runs.export_run_id
FROM runs
LEFT JOIN crawls USING (night_id)
LEFT JOIN models USING (night_id)
ORDER BY runs.started_at, runs.night_id;
