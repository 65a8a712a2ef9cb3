-- Game pages, typed. (Implausible values are flagged once, in marts.games.)
-- A game whose page last answered 404 is gone (raw.pages): kept in raw, left out here.
CREATE OR REPLACE VIEW staging.stg_games AS
WITH source AS (
    SELECT * FROM raw.games
    WHERE game_id NOT IN (SELECT key FROM raw.pages WHERE kind = 'game' AND http_status = 404)
),
renamed AS (
    SELECT
        game_id,
        name_ja,
        name_en,
        min_players,
        max_players,
        min_minutes,
        max_minutes,
        min_age,
        year,
        n_watching,
        n_played,
        n_favorite,
        n_have,
        coalesce(designers, []) AS designers,
        coalesce(mechanics, []) AS mechanics,
        coalesce(themes, []) AS themes,
        overview,
        url,
        run_id,
        fetched_at AS crawled_at
    FROM source
)
SELECT * FROM renamed;
