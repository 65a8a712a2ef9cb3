-- @table marts.bgg_interactions: Training rows from linked members' BoardGameGeek collections, on
--   the site games their BGG things match (docs/bgg.md): own -> have, numplays > 0 -> played,
--   rating >= 8 -> favorite, want, wishlist or want to play -> watching. Only for members public
--   on the site now (marts.members) and linked in the latest links file; a member who turns private
--   or is unlinked has no row. Used to train models only: never shown as site data, never exported.
-- @key user_id, game_id
-- @join user_id -> marts.members
-- @join game_id -> marts.games
-- @column user_id: The site member (raw.bgg_member_links.user_id).
-- @column game_id: The site game (marts.bgg_games.game_id).
-- @column have: They own it on BGG.
-- @column played: They logged at least one play on BGG.
-- @column favorite: They rated it 8 or more (of 10) on BGG.
-- @column watching: It is on their BGG want, wishlist or want-to-play list.
-- @column rating: Their BGG rating on the site's 1-5 stars (ceil of BGG's 1-10 / 2); NULL for none.
-- @column bgg_user: Their BGG user name.
CREATE OR REPLACE TABLE marts.bgg_interactions AS
WITH source AS (
    SELECT l.user_id, l.bgg_user, g.game_id, i.*
    FROM raw.bgg_collection_items i
    JOIN raw.bgg_member_links l USING (bgg_user)
    SEMI JOIN marts.members m ON m.user_id = l.user_id
    JOIN marts.bgg_games g ON g.bgg_id = i.bgg_id AND g.game_id IS NOT NULL
)
SELECT
    user_id,
    game_id,
    bool_or(own) AS have,
    bool_or(numplays > 0) AS played,
    coalesce(bool_or(rating >= 8), false) AS favorite,
    bool_or(want OR wishlist OR wanttoplay) AS watching,
    max(CAST(ceil(rating / 2) AS INTEGER)) AS rating,
    any_value(bgg_user) AS bgg_user
FROM source
GROUP BY user_id, game_id
HAVING bool_or(own OR numplays > 0 OR rating >= 8 OR want OR wishlist OR wanttoplay)
ORDER BY user_id, game_id;
