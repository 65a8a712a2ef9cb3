-- marts.games: the latest state of every game (CONTRACT.md). A game whose own page could
-- not be read still appears from its catalogue row (source = 'catalog', no counters).
-- Implausible published values (1人～65536人) are kept as published and flagged here,
-- the one place the rule lives: filters trust the site, charts and checks use the flags.
CREATE OR REPLACE TABLE marts.games AS
WITH pages AS (
    SELECT *, 'page' AS source FROM staging.stg_games
),
catalog_only AS (
    SELECT
        s.game_id, s.name_ja, s.name_en, s.min_players, s.max_players, s.min_minutes,
        s.max_minutes, s.min_age, s.year,
        NULL::INTEGER AS n_watching, NULL::INTEGER AS n_played,
        NULL::INTEGER AS n_favorite, NULL::INTEGER AS n_have,
        []::VARCHAR[] AS designers, []::VARCHAR[] AS mechanics, []::VARCHAR[] AS themes,
        NULL::VARCHAR AS overview, '/games/' || s.game_id AS url, s.run_id, s.crawled_at,
        'catalog' AS source
    FROM staging.stg_game_summaries s
    ANTI JOIN pages p USING (game_id)
)
SELECT
    game_id, name_ja, name_en, min_players, max_players, min_minutes, max_minutes,
    min_age, year, n_watching, n_played, n_favorite, n_have, designers, mechanics, themes,
    url, crawled_at, overview, source,
    coalesce(max_players > 100 OR min_players < 1 OR max_players < min_players, false) AS players_implausible,
    coalesce(max_minutes > 24 * 60 OR min_minutes < 0 OR max_minutes < min_minutes, false) AS minutes_implausible,
    coalesce(year < 1900 OR year > extract('year' FROM crawled_at) + 2, false) AS year_implausible
FROM (SELECT * FROM pages UNION ALL BY NAME SELECT * FROM catalog_only)
ORDER BY game_id;
