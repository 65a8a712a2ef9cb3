-- Catalogue rows: the fallback for games whose own page could not be read.
CREATE OR REPLACE VIEW staging.stg_game_summaries AS
WITH source AS (
    SELECT * FROM raw.game_summaries
)
SELECT
    game_id, name_ja, name_en, min_players, max_players, min_minutes, max_minutes,
    min_age, year, run_id, fetched_at AS crawled_at
FROM source;
