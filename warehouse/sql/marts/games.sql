-- @table marts.games: The latest state of every game (docs/interface.md), one row per game: from its
--   own page, or from its catalogue row when the page could not be read (source = 'catalog':
--   no counters, no credits). A game whose page answered 404 is gone and left out.
--   The one definition of "playable with N players" and "fits in M minutes" (docs/recommenders.md):
--   playable with N <=> players_from <= N AND N <= players_to; fits in M <=> minutes_to <= M.
--   A range the site publishes but no game has (more than 100 players: 1人～65536人 is the
--   site's placeholder for "any number"; more than a day; fewer than 1 player; a negative time;
--   a maximum below its minimum) is unknown: its filter columns are NULL, so it drops out of a
--   filter as a missing value does, and its *_implausible flag is true. The min_/max_ columns
--   keep what the site publishes, for display.
-- @key game_id
-- @inherit staging.stg_games
-- @join game_id -> marts.collections
-- @join game_id -> marts.game_popularity
-- @join game_id -> marts.cafe_games
-- @join game_id -> marts.similar_games
-- @column n_watching: Members with 興味あり (watching) set, the site's own counter on the game
--   page: private members included. NULL for a catalogue-only game (source = 'catalog').
--   marts.game_popularity.members_watching counts public collections only.
-- @column n_played: Members with 経験あり (played) set, the site's own counter on the game page:
--   private members included. NULL for a catalogue-only game. marts.game_popularity.members_played
--   counts public collections only.
-- @column n_favorite: Members with お気に入り (favorite) set, the site's own counter on the game
--   page: private members included. NULL for a catalogue-only game.
--   marts.game_popularity.members_favorite counts public collections only.
-- @column n_have: Members with 持ってる (have) set, the site's own counter on the game page:
--   private members included, so it is usually above marts.game_popularity.members_have (which counts
--   public collections only: e.g. 267 vs 257). NULL for a catalogue-only game.
-- @column designers: Designers credited on the game page, in page order; an empty list where none
--   or for a catalogue-only game.
-- @column mechanics: Mechanics the game page tags (Japanese labels such as ワーカープレイスメント);
--   an empty list where none or for a catalogue-only game.
-- @column themes: Themes the game page tags (Japanese labels such as 動物); an empty list where
--   none or for a catalogue-only game.
-- @column overview: The game page's description text; NULL where none or for a catalogue-only game.
-- @column url: The game page's path on the site (/games/<slug>).
-- @column crawled_at: When the crawl that last read the game page (or its catalogue row) wrote
--   it, UTC.
-- @column source: Where the row comes from: page (the game's own page) or catalog (its catalogue
--   row only: the page could not be read).
-- @column players_from: Filter column: fewest players, min_players unless the range is
--   implausible (then NULL). Playable with N <=> players_from <= N AND N <= players_to.
-- @column players_to: Filter column: most players, max_players (min_players for a single count
--   such as 2人) unless the range is implausible (then NULL).
-- @column minutes_to: Filter column: the longest play time in minutes, max_minutes (else
--   min_minutes: 10分前後 is 10) unless the time is implausible (then NULL). Fits in M <=>
--   minutes_to <= M.
-- @column players_implausible: True when the published players range is one no game has (more
--   than 100, fewer than 1, maximum below minimum); players_from and players_to are then NULL.
-- @column minutes_implausible: True when the published time is one no game has (more than a day,
--   negative, maximum below minimum); minutes_to is then NULL.
-- @column year_implausible: True when the year is before 1900 or more than two years after the
--   crawl (kept as published; flagged by a quality check).
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
