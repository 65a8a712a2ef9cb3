-- @table marts.bgg_games: BoardGameGeek's facts about games (docs/bgg.md), one row per BGG thing,
--   kept apart from the site's own (marts.games): BGG's weight, the player counts its community
--   calls best or recommended, its suggested age and owner counts. Expansions and accessories are
--   here too, flagged. Powered by BGG: a public page showing these says so, linking to BGG.
-- @key bgg_id
-- @join game_id -> marts.games
-- @column bgg_id: The thing's id on BoardGameGeek (boardgamegeek.com/boardgame/<id>).
-- @column game_id: The site game this thing is (raw.bgg_game_matches: an override, else a unique
--   match of name and year); NULL when unmatched, ambiguous, or the site game is gone.
-- @column name: BGG's primary name.
-- @column year: Year published per BGG; NULL where unknown.
-- @column weight: BGG's average weight, 1 (light) to 5 (heavy); NULL when nobody voted one.
-- @column best_players: Player counts BGG's community calls best, ascending (the poll rule in
--   docs/bgg.md); NULL when unknown (no poll, or under 20 votes); empty when none qualifies.
-- @column recommended_players: Player counts BGG's community recommends (best ones included),
--   ascending; NULL when unknown; empty when none qualifies.
-- @column min_age_suggested: The age most voters of BGG's age poll suggest; NULL under 20 votes.
-- @column n_owned: BGG users who own it.
-- @column n_wishing: BGG users with it on their wishlist.
-- @column is_expansion: True for an expansion or accessory (not a game of its own): kept apart
--   from games, never matched as one.
-- @column min_players: Fewest players the box says, per BGG.
-- @column max_players: Most players the box says, per BGG.
-- @column poll_votes: Voters of BGG's player-count poll.
-- @column fetched_at: When BGG was last asked about the thing (UTC).
CREATE OR REPLACE TABLE marts.bgg_games AS
WITH things AS (
    SELECT * FROM raw.bgg_things
),
matched AS (
    SELECT m.bgg_id, m.game_id FROM raw.bgg_game_matches m SEMI JOIN marts.games g USING (game_id)
)
SELECT
    t.bgg_id,
    CASE WHEN t.thing_type = 'boardgame' THEN m.game_id END AS game_id,
    t.name,
    t.year,
    t.weight,
    t.best_players,
    t.recommended_players,
    t.min_age_suggested,
    t.n_owned,
    t.n_wishing,
    t.thing_type <> 'boardgame' AS is_expansion,
    t.min_players,
    t.max_players,
    t.poll_votes,
    t.fetched_at
FROM things t
LEFT JOIN matched m USING (bgg_id)
ORDER BY t.bgg_id;
