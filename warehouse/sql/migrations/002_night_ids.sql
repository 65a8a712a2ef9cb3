-- Nights you can compare (issue 23): the marts a night writes from Python carry the night's id
-- (the Dagster run's), marts.pipeline_runs names the bundle the night released, and
-- marts.model_runs says how each champion was chosen. These marts outlive every night (history)
-- or are replaced by INSERT … BY NAME, so an older warehouse needs the columns before the night
-- writes them; a table it does not have yet is made later from its current DDL, except
-- marts.pipeline_runs, made here as of this version so that its earlier runs get their night id
-- (their run id). raw.crawl_runs.night_id is a declared nullable raw column: migrate.py adds it.
CREATE SCHEMA IF NOT EXISTS marts;
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
ALTER TABLE marts.pipeline_runs ADD COLUMN IF NOT EXISTS night_id VARCHAR;
ALTER TABLE marts.pipeline_runs ADD COLUMN IF NOT EXISTS export_run_id VARCHAR;
UPDATE marts.pipeline_runs SET night_id = run_id WHERE night_id IS NULL;
ALTER TABLE IF EXISTS marts.model_runs ADD COLUMN IF NOT EXISTS night_id VARCHAR;
ALTER TABLE IF EXISTS marts.model_runs ADD COLUMN IF NOT EXISTS selection VARCHAR;
ALTER TABLE IF EXISTS marts.recommendations ADD COLUMN IF NOT EXISTS night_id VARCHAR;
ALTER TABLE IF EXISTS marts.similar_games ADD COLUMN IF NOT EXISTS night_id VARCHAR;
