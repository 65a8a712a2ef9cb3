-- A card of a member's collection (マイボードゲーム): the member, the game, the four statuses
-- and the star rating, as the crawl stores it (raw.collection_entries) and as the collection
-- history keeps each version of it (marts.collection_history), declared here once so the two
-- keep the same columns and types. Described in each table.
user_id    VARCHAR NOT NULL,
game_id    VARCHAR NOT NULL,
have       BOOLEAN NOT NULL,
played     BOOLEAN NOT NULL,
favorite   BOOLEAN NOT NULL,
watching   BOOLEAN NOT NULL,
rating     INTEGER,
