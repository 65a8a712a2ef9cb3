-- Game pages, typed and flagged. Implausible published values (1人～65536人) are kept
-- as published and flagged, so that filters can trust the site and charts can skip them.
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
SELECT
    *,
    (max_players > 100 OR min_players < 1 OR max_players < min_players) AS players_implausible,
    (max_minutes > 24 * 60 OR min_minutes < 0 OR max_minutes < min_minutes) AS minutes_implausible,
    (year < 1900 OR year > extract('year' FROM crawled_at) + 2) AS year_implausible
FROM renamed;
