-- marts.games: the latest state of every game (CONTRACT.md). A game whose own page could
-- not be read still appears from its catalogue row (source = 'catalog', no counters).
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
        (s.max_players > 100 OR s.min_players < 1 OR s.max_players < s.min_players) AS players_implausible,
        (s.max_minutes > 24 * 60 OR s.min_minutes < 0 OR s.max_minutes < s.min_minutes) AS minutes_implausible,
        (s.year < 1900 OR s.year > extract('year' FROM s.crawled_at) + 2) AS year_implausible,
        'catalog' AS source
    FROM staging.stg_game_summaries s
    ANTI JOIN pages p USING (game_id)
)
SELECT
    game_id, name_ja, name_en, min_players, max_players, min_minutes, max_minutes,
    min_age, year, n_watching, n_played, n_favorite, n_have, designers, mechanics, themes,
    url, crawled_at, overview, source,
    coalesce(players_implausible, false) AS players_implausible,
    coalesce(minutes_implausible, false) AS minutes_implausible,
    coalesce(year_implausible, false) AS year_implausible
FROM (SELECT * FROM pages UNION ALL BY NAME SELECT * FROM catalog_only)
ORDER BY game_id;
