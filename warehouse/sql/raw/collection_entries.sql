-- @table raw.collection_entries: Cards of members' public collections (マイボードゲーム,
--   /friends/<id>/boardgames): the current state per (member, game). A complete crawl of a
--   member removes the entries it no longer saw; a member whose collection turned private
--   (the site answers with its login page) is deleted here, never kept.
-- @key user_id, game_id
-- @join user_id -> raw.members
-- @join game_id -> raw.games
-- @column user_id: The member's id on the site (/friends/<id>).
-- @column game_id: The game's slug on the site (/games/<slug>).
-- @column have: The member set 持ってる (have): they own the game.
-- @column played: The member set 経験あり (played): they have played the game.
-- @column favorite: The member set お気に入り (favorite).
-- @column watching: The member set 興味あり (watching): interested, wants to play it.
-- @column rating: The member's star rating, 1 to 5 stars (a half star rounds up); NULL where the
--   site shows 0 stars (unrated or hidden) or no readable number.
-- @column updated_at: When the member last changed the entry, as published (ISO 8601 text with
--   its offset); NULL where the card shows none.
-- @column run_id: The crawl run (raw.crawl_runs.run_id) that last saw this card.
-- @column fetched_at: When that crawl wrote this row (UTC).
CREATE TABLE IF NOT EXISTS raw.collection_entries (
    {{ columns.card }}
    updated_at VARCHAR,
    run_id     VARCHAR NOT NULL,
    fetched_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (user_id, game_id)
);
