-- Cards of members' public collections, current state per (member, game).
-- A complete crawl of a member removes the entries it no longer saw.
CREATE TABLE IF NOT EXISTS raw.collection_entries (
    user_id    VARCHAR NOT NULL,
    game_id    VARCHAR NOT NULL,
    have       BOOLEAN NOT NULL,
    played     BOOLEAN NOT NULL,
    favorite   BOOLEAN NOT NULL,
    watching   BOOLEAN NOT NULL,
    rating     INTEGER,                   -- NULL where the site shows 0 stars
    updated_at VARCHAR,                   -- as published (ISO 8601 with offset)
    run_id     VARCHAR NOT NULL,
    fetched_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (user_id, game_id)
);
