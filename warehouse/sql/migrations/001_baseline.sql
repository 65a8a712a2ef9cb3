-- The raw schema as of the first versioned release (every raw table's file in
-- warehouse/sql/raw/). Nothing to change: a warehouse written before migrations existed
-- is at this version once its missing nullable columns are added (warehouse/migrate.py).
SELECT 1;
