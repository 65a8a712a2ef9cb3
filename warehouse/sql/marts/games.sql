-- marts.games: the latest state of every game (CONTRACT.md). A game whose own page could
-- not be read still appears from its catalogue row (source = 'catalog', no counters).
--
-- The one definition of "playable with N players" and "fits in M minutes" (README):
--   playable with N  <=>  players_from <= N AND N <= players_to
--   fits in M        <=>  minutes_to <= M
-- players_from/players_to are the published minimum and maximum (a single 2人 is 2-2),
-- minutes_to the published maximum, else the minimum (10分前後 is 10). A range the site
-- publishes but no game has -- more than 100 players (1人～65536人 is the site's
-- placeholder for "any number"), more than a day, fewer than 1 player, a negative time,
-- a maximum below its minimum -- is unknown: its filter columns are NULL, so it drops out
-- of a filter, as a missing value does. min_/max_ columns keep what the site publishes,
-- for display. These limits are stated here and nowhere else.
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
    CASE WHEN NOT players_implausible THEN min_players END AS players_from,
    CASE WHEN NOT players_implausible THEN coalesce(max_players, min_players) END AS players_to,
    CASE WHEN NOT minutes_implausible THEN coalesce(max_minutes, min_minutes) END AS minutes_to,
    players_implausible, minutes_implausible, year_implausible
FROM (
    SELECT *,
        coalesce(
            coalesce(max_players, min_players) > 100 OR min_players < 1 OR max_players < min_players, false
        ) AS players_implausible,
        coalesce(
            coalesce(max_minutes, min_minutes) > 24 * 60 OR min_minutes < 0 OR max_minutes < min_minutes, false
        ) AS minutes_implausible,
        coalesce(year < 1900 OR year > extract('year' FROM crawled_at) + 2, false) AS year_implausible
    FROM (SELECT * FROM pages UNION ALL BY NAME SELECT * FROM catalog_only)
)
ORDER BY game_id;
