-- @table raw.schema_migrations: Which numbered migrations (warehouse/sql/migrations/NNN_name.sql)
--   this warehouse has had, and when: how a newer version of the code knows what an older one
--   left (warehouse/migrate.py).
-- @key version
-- @column version: The migration file's number NNN.
-- @column name: The file's name without .sql.
-- @column applied_at: When it was applied (UTC).
CREATE TABLE IF NOT EXISTS raw.schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       VARCHAR NOT NULL,
    applied_at TIMESTAMPTZ NOT NULL
);
