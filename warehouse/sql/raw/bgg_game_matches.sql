-- @table raw.bgg_game_matches: Which site game each BGG thing is (warehouse.bgg_links), recomputed
--   by every BGG sync: a manual override, else a unique match of the normalized name (English, or
--   any BGG alternate name such as a Japanese title) and year. Ambiguous and unmatched things have
--   no row; the sync's report lists them.
-- @key bgg_id
-- @column bgg_id: The BGG thing (raw.bgg_things.bgg_id).
-- @column game_id: The site game's slug (raw.games.game_id).
-- @column method: override (the overrides file), name_year (primary name and year) or
--   alternate_year (an alternate name and year).
-- @column run_id: The BGG sync run that made the match.
-- @column fetched_at: When it was made (UTC).
CREATE TABLE IF NOT EXISTS raw.bgg_game_matches (
    bgg_id     INTEGER PRIMARY KEY,
    game_id    VARCHAR NOT NULL,
    method     VARCHAR NOT NULL,
    run_id     VARCHAR NOT NULL,
    fetched_at TIMESTAMPTZ NOT NULL
);
