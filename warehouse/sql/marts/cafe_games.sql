-- marts.cafe_games: which games each cafe offers (CONTRACT.md).
CREATE OR REPLACE TABLE marts.cafe_games AS
SELECT space_slug, game_id, space_name, crawled_at
FROM staging.stg_cafe_games
ORDER BY space_slug, game_id;
