-- @table staging.stg_game_summaries: Catalogue rows, the fallback for games whose own page could
--   not be read; games whose page answered 404 (gone) are left out.
-- @key game_id
-- @inherit raw.game_summaries
-- @column crawled_at: When the crawl that last saw the catalogue row wrote it (raw fetched_at), UTC.
CREATE OR REPLACE VIEW staging.stg_game_summaries AS
WITH source AS (
    SELECT * FROM raw.game_summaries
    WHERE game_id NOT IN (SELECT key FROM raw.pages WHERE kind = 'game' AND http_status = 404)
)
SELECT
    game_id, name_ja, name_en, min_players, max_players, min_minutes, max_minutes,
    min_age, year, run_id, fetched_at AS crawled_at
FROM source;
