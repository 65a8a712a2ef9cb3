-- @table raw.games: Game pages (/games/<slug>), the latest fetch per game, as published. A game
--   whose page answered 404 is gone: it stays here (and in raw.pages with http_status 404) and
--   is left out of staging and the marts.
-- @key game_id
-- @inherit raw.game_counters, raw.cafe_games
-- @column designers: Designers credited on the page, in page order; NULL where the page lists
--   none.
-- @column mechanics: Mechanics the page tags the game with (Japanese labels such as
--   ワーカープレイスメント); NULL where there are none.
-- @column themes: Themes the page tags the game with (Japanese labels such as 動物); NULL where
--   there are none.
-- @column overview: The page's description text; NULL where there is none.
-- @column url: The page's path on the site (/games/<slug>).
-- @column run_id: The crawl run (raw.crawl_runs.run_id) that last read the page.
-- @column fetched_at: When that crawl wrote this row (UTC).
CREATE TABLE IF NOT EXISTS raw.games (
    game_id     VARCHAR PRIMARY KEY,
    {{ columns.game_listing }},
    n_watching  INTEGER,
    n_played    INTEGER,
    n_favorite  INTEGER,
    n_have      INTEGER,
    designers   VARCHAR[],
    mechanics   VARCHAR[],
    themes      VARCHAR[],
    overview    VARCHAR,
    url         VARCHAR,
    run_id      VARCHAR NOT NULL,
    fetched_at  TIMESTAMPTZ NOT NULL
);
