-- Welcome lists (issue 42): every public member gets a discovery list; marts.recommendations says
-- which lists are welcome lists (models.discovery.welcome). Replaced INSERT … BY NAME each night,
-- so an older warehouse needs the column before the night writes it; older rows keep NULL.
ALTER TABLE IF EXISTS marts.recommendations ADD COLUMN IF NOT EXISTS welcome BOOLEAN;
