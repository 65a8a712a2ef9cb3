-- marts.quality_checks: the latest result of each data-quality check (warehouse/sql/checks/),
-- written by warehouse.quality after every build and by each Dagster asset check.
CREATE TABLE IF NOT EXISTS marts.quality_checks (
    check_name VARCHAR NOT NULL,
    severity VARCHAR NOT NULL,      -- error | warn, as the check file declares it
    description VARCHAR,
    n_failures BIGINT NOT NULL,
    passed BOOLEAN NOT NULL,
    examples VARCHAR,               -- JSON list of {key, detail}, at most 5
    checked_at TIMESTAMPTZ NOT NULL
);
