-- Which numbered migrations (warehouse/sql/migrations/NNN_name.sql) this warehouse has had,
-- and when: how a newer version of the code knows what an older one left (warehouse/migrate.py).
CREATE TABLE IF NOT EXISTS raw.schema_migrations (
    version    INTEGER PRIMARY KEY,        -- the file's number NNN
    name       VARCHAR NOT NULL,           -- the file's name without .sql
    applied_at TIMESTAMPTZ NOT NULL
);
