-- Game pages, typed. (Implausible values are flagged once, in marts.games.)
CREATE OR REPLACE VIEW staging.stg_games AS
WITH source AS (
    SELECT * FROM raw.games
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
