-- @table raw.bgg_collection_items: The BoardGameGeek collections of linked members' BGG users, one
--   row per (BGG user, thing), as /collection?stats=1 answers. A sync with modifiedsince applies
--   only the rows BGG says changed; a full fetch (the first, or past the maximum age) also removes
--   what the collection no longer shows. A BGG user no longer in the links file is removed. Never
--   shown or exported as site data.
-- @key bgg_user, bgg_id
-- @column bgg_user: The BGG user name (as written in the links file).
-- @column bgg_id: The thing's BGG id (raw.bgg_things.bgg_id).
-- @column subtype: BGG's subtype of the item (boardgame, boardgameexpansion).
-- @column own: BGG's own flag: the user owns it.
-- @column prevowned: BGG's prevowned flag: owned it before.
-- @column want: BGG's want flag (want in trade).
-- @column wanttoplay: BGG's wanttoplay flag.
-- @column wanttobuy: BGG's wanttobuy flag.
-- @column wishlist: BGG's wishlist flag.
-- @column preordered: BGG's preordered flag.
-- @column rating: The user's own rating, 1 to 10 (decimals allowed); NULL for N/A.
-- @column numplays: Plays the user logged on BGG.
-- @column lastmodified: When the user last changed the item on BGG (ISO 8601, BGG gives no zone).
-- @column run_id: The BGG sync run that last saw the row.
-- @column fetched_at: When that sync wrote it (UTC).
CREATE TABLE IF NOT EXISTS raw.bgg_collection_items (
    bgg_user     VARCHAR NOT NULL,
    bgg_id       INTEGER NOT NULL,
    subtype      VARCHAR,
    own          BOOLEAN NOT NULL,
    prevowned    BOOLEAN NOT NULL,
    want         BOOLEAN NOT NULL,
    wanttoplay   BOOLEAN NOT NULL,
    wanttobuy    BOOLEAN NOT NULL,
    wishlist     BOOLEAN NOT NULL,
    preordered   BOOLEAN NOT NULL,
    rating       DOUBLE,
    numplays     INTEGER NOT NULL,
    lastmodified VARCHAR,
    run_id       VARCHAR NOT NULL,
    fetched_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (bgg_user, bgg_id)
);
