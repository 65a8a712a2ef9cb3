-- @table marts.collection_history: What each member held on each night, as versions: a row is one
--   state of one card (member, game, statuses, rating) from the night it was first seen to the
--   night it changed or went (marts.history_nights numbers). What a member held on night n is
--   the rows with from_night <= n and (to_night IS NULL or to_night > n). Recorded each night
--   from marts.collections, only the changes added; versions closed more than 31 nights ago are
--   dropped; a member who turns private leaves it (warehouse.outcomes.history).
-- @key user_id, game_id, from_night
-- @join user_id -> marts.members
-- @join game_id -> marts.games
-- @column user_id: The member (marts.members.user_id).
-- @column game_id: The game (marts.games.game_id).
-- @column have: 持ってる (have) in this version.
-- @column played: 経験あり (played) in this version.
-- @column favorite: お気に入り (favorite) in this version.
-- @column watching: 興味あり (watching) in this version.
-- @column rating: The star rating in this version (NULL when none).
-- @column updated_at: When the member last changed the card, as marts.collections held it when this
--   version was first seen: what a recency weighting ages a refitted champion's rows by (NULL on
--   versions recorded before the column existed).
-- @column from_night: The first night (marts.history_nights.night_no) that saw this version.
-- @column to_night: The first night that no longer saw it (changed or removed); NULL while it is
--   the card's current state.
CREATE TABLE IF NOT EXISTS marts.collection_history (
    {{ columns.card }}
    updated_at TIMESTAMPTZ,
    from_night INTEGER NOT NULL,
    to_night INTEGER,
    PRIMARY KEY (user_id, game_id, from_night)
);
