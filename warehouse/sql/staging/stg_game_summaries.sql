-- Catalogue rows: the fallback for games whose own page could not be read.
CREATE OR REPLACE VIEW staging.stg_game_summaries AS
WITH source AS (
    SELECT * FROM raw.game_summaries
    WHERE game_id NOT IN (SELECT key FROM raw.pages WHERE kind = 'game' AND http_status = 404)
)
SELECT
    game_id, name_ja, name_en, min_players, max_players, min_minutes, max_minutes,
    min_age, year, run_id, fetched_at AS crawled_at
FROM source;
