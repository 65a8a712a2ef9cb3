-- @table raw.cafe_games: Games each board game cafe offers, as its pages
--   /spaces/<slug>/games list them: the current state per (cafe, game). A complete crawl
--   of a cafe's list (every page read) removes the games it no longer shows.
-- @key space_slug, game_id
-- @join game_id -> raw.games
-- @column space_slug: The cafe's slug on the site (/spaces/<slug>).
-- @column game_id: The game's slug on the site (/games/<slug>); the key of every games table.
-- @column space_name: The cafe's name as its page shows it; NULL if the page shows none.
-- @column name_ja: The game's Japanese name as the site shows it; NULL where absent.
-- @column name_en: The game's English name as the site shows it; NULL where absent.
-- @column min_players: Fewest players as published (2人～4人 gives 2, 2人 gives 2); NULL where
--   the site shows none. Kept as published, even a placeholder such as 1人～65536人.
-- @column max_players: Most players as published (2人～4人 gives 4, 2人 gives 2); NULL where the
--   site shows none.
-- @column min_minutes: Shortest play time in minutes as published (30分～60分 gives 30, 10分前後
--   "about 10 minutes" gives 10); NULL where the site shows none.
-- @column max_minutes: Longest play time in minutes as published (30分～60分 gives 60, 10分前後
--   gives 10); NULL where the site shows none.
-- @column min_age: Minimum age in years as published (10歳～ gives 10); NULL where the site shows
--   none or 未登録 (not registered).
-- @column year: Publication year as published (2025年 gives 2025); NULL where the site shows none.
-- @column run_id: The crawl run (raw.crawl_runs.run_id) that last saw this row.
-- @column fetched_at: When that crawl wrote this row (UTC).
CREATE TABLE IF NOT EXISTS raw.cafe_games (
    space_slug  VARCHAR NOT NULL,
    game_id     VARCHAR NOT NULL,
    space_name  VARCHAR,
    {{ columns.game_listing }},
    run_id      VARCHAR NOT NULL,
    fetched_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (space_slug, game_id)
);
