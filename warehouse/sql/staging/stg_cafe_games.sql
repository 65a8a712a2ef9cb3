-- Games offered by cafes.
CREATE OR REPLACE VIEW staging.stg_cafe_games AS
WITH source AS (
    SELECT * FROM raw.cafe_games
)
SELECT space_slug, game_id, space_name, run_id, fetched_at AS crawled_at
FROM source;
