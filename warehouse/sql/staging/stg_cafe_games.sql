-- @table staging.stg_cafe_games: Games offered by cafes (raw.cafe_games), renamed for the marts.
-- @key space_slug, game_id
-- @inherit raw.cafe_games
-- @column crawled_at: When the crawl that last saw the row wrote it (raw fetched_at), UTC.
CREATE OR REPLACE VIEW staging.stg_cafe_games AS
WITH source AS (
    SELECT * FROM raw.cafe_games
)
SELECT space_slug, game_id, space_name, run_id, fetched_at AS crawled_at
FROM source;
