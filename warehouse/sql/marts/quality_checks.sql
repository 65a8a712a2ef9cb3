-- @table marts.quality_checks: The latest result of each data-quality check (one SQL file each in
--   warehouse/sql/checks/), written by warehouse.quality after every build and by each Dagster
--   asset check. One row per check.
-- @key check_name
-- @column check_name: The check's file name without .sql, named after the mart it checks (e.g.
--   games_unique_key checks marts.games).
-- @column severity: error (blocks the night) or warn, as the check file declares it; error also
--   when the check itself failed to run.
-- @column description: What the check asserts (the file's first comment line).
-- @column n_failures: Rows that fail the check (0 when it passed).
-- @column passed: True when no row fails it.
-- @column examples: Up to 5 failing rows as JSON: [{key, detail}].
-- @column checked_at: When the check ran (UTC).
CREATE TABLE IF NOT EXISTS marts.quality_checks (
    check_name VARCHAR NOT NULL,
    severity VARCHAR NOT NULL,
    description VARCHAR,
    n_failures BIGINT NOT NULL,
    passed BOOLEAN NOT NULL,
    examples VARCHAR,
    checked_at TIMESTAMPTZ NOT NULL
);
