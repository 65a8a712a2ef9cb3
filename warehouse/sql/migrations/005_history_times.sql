-- The collection history keeps each version's updated_at (issue 41): a champion weighted by recency,
-- refitted on what members held on a served night (marts.list_outcomes' previous champion), ages its
-- rows as that night did. An older warehouse needs the column before the night inserts it; versions
-- recorded before keep NULL (no time: counted as new).
ALTER TABLE IF EXISTS marts.collection_history ADD COLUMN IF NOT EXISTS updated_at TIMESTAMPTZ;
