-- @table marts.game_popularity: Popularity of every game of marts.games, two ways: members_*
--   count the statuses in public collections (marts.collections, what the models learn from)
--   and site_* are the site's own counters (marts.games.n_*, which also count private members,
--   so site_have is usually the larger: e.g. 267 vs 257 for the top game). Also ratios, the "wanted but
--   not owned" gap, the change of the site's counters since the previous crawl of the game, and
--   a popularity rank and decile the dashboard's popularity-bias charts read. Rows are ordered by
--   members_have, but popularity_rank ranks by n_members (any status), not by owners.
-- @key game_id
-- @inherit marts.games
-- @join game_id -> marts.games
-- @column n_members: Public members with the game in their collection, any status (持ってる,
--   経験あり, お気に入り or 興味あり); 0 when none.
-- @column members_have: Public members who set 持ってる (have). Private members are not counted:
--   compare site_have (marts.games.n_have).
-- @column members_played: Public members who set 経験あり (played).
-- @column members_favorite: Public members who set お気に入り (favorite).
-- @column members_watching: Public members who set 興味あり (watching).
-- @column wanted_not_owned: Public members who set 興味あり (watching) without 持ってる (have).
-- @column n_ratings: Public members who rated the game (1-5 stars); NULL when no public member has
--   it at all.
-- @column avg_rating: Mean star rating (1-5) of those ratings; NULL when nobody rated it.
-- @column site_have: The site's 持ってる (have) counter, marts.games.n_have: private members
--   included. NULL for a catalogue-only game.
-- @column site_played: The site's 経験あり (played) counter, marts.games.n_played: private members
--   included. NULL for a catalogue-only game.
-- @column site_favorite: The site's お気に入り (favorite) counter, marts.games.n_favorite: private
--   members included. NULL for a catalogue-only game.
-- @column site_watching: The site's 興味あり (watching) counter, marts.games.n_watching: private
--   members included. NULL for a catalogue-only game.
-- @column owned_ratio: members_have / n_members (0 to 1); NULL when n_members is 0.
-- @column played_ratio: members_played / n_members (0 to 1); NULL when n_members is 0.
-- @column watching_ratio: members_watching / n_members (0 to 1); NULL when n_members is 0.
-- @column site_have_change: site_have minus the counter at the previous crawl run that read the
--   game page; NULL on the game's first crawl or without counters.
-- @column site_played_change: site_played minus the counter at the previous crawl run that read
--   the game page; NULL on the game's first crawl or without counters.
-- @column site_favorite_change: site_favorite minus the counter at the previous crawl run that
--   read the game page; NULL on the game's first crawl or without counters.
-- @column site_watching_change: site_watching minus the counter at the previous crawl run that
--   read the game page; NULL on the game's first crawl or without counters.
-- @column popularity_rank: 1 = the game most public members have in their collection with any
--   status (by n_members, ties by game_id); not a ranking by owners (members_have).
-- @column popularity_decile: 1 = the 10% of games with the best popularity_rank … 10 = the least
--   popular 10%.
CREATE OR REPLACE TABLE marts.game_popularity AS
WITH members_agg AS (
    SELECT
        game_id,
        count(*) AS n_members,
        count(*) FILTER (WHERE have) AS members_have,
        count(*) FILTER (WHERE played) AS members_played,
        count(*) FILTER (WHERE favorite) AS members_favorite,
        count(*) FILTER (WHERE watching) AS members_watching,
        count(*) FILTER (WHERE watching AND NOT have) AS wanted_not_owned,
        count(rating) AS n_ratings,
        avg(rating)::DOUBLE AS avg_rating
    FROM marts.collections
    GROUP BY game_id
),
latest_counters AS (
    SELECT * FROM staging.stg_game_counters
    QUALIFY row_number() OVER (PARTITION BY game_id ORDER BY crawled_at DESC, run_id DESC) = 1
)
SELECT
    g.game_id, g.name_ja, g.name_en,
    coalesce(m.n_members, 0) AS n_members,
    coalesce(m.members_have, 0) AS members_have,
    coalesce(m.members_played, 0) AS members_played,
    coalesce(m.members_favorite, 0) AS members_favorite,
    coalesce(m.members_watching, 0) AS members_watching,
    coalesce(m.wanted_not_owned, 0) AS wanted_not_owned,
    m.n_ratings, m.avg_rating,
    g.n_have AS site_have, g.n_played AS site_played,
    g.n_favorite AS site_favorite, g.n_watching AS site_watching,
    m.members_have::DOUBLE / nullif(m.n_members, 0) AS owned_ratio,
    m.members_played::DOUBLE / nullif(m.n_members, 0) AS played_ratio,
    m.members_watching::DOUBLE / nullif(m.n_members, 0) AS watching_ratio,
    g.n_have - c.prev_n_have AS site_have_change,
    g.n_played - c.prev_n_played AS site_played_change,
    g.n_favorite - c.prev_n_favorite AS site_favorite_change,
    g.n_watching - c.prev_n_watching AS site_watching_change,
    row_number() OVER (ORDER BY coalesce(m.n_members, 0) DESC, g.game_id) AS popularity_rank,
    least(10, 1 + floor((popularity_rank - 1) * 10 / count(*) OVER ()))::INTEGER AS popularity_decile
FROM marts.games g
LEFT JOIN members_agg m USING (game_id)
LEFT JOIN latest_counters c USING (game_id)
ORDER BY members_have DESC, game_id;
