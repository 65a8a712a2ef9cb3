-- @table staging.stg_collections: Public collection cards (raw.collection_entries) with typed
--   timestamps and ratings. Private members never reach raw, so never reach here.
-- @key user_id, game_id
-- @inherit raw.collection_entries
-- @column rating: The member's star rating, 1 to 5; NULL where the site shows 0 stars (unrated
--   or hidden) or a value outside 1-5.
-- @column updated_at: When the member last changed the entry (the published time, typed); NULL
--   where the card shows none or it does not parse.
-- @column crawled_at: When the crawl that last saw the card wrote it (raw fetched_at), UTC.
CREATE OR REPLACE VIEW staging.stg_collections AS
WITH source AS (
    SELECT * FROM raw.collection_entries
)
SELECT
    user_id,
    game_id,
    have,
    played,
    favorite,
    watching,
    CASE WHEN rating BETWEEN 1 AND 5 THEN rating END AS rating,
    TRY_CAST(updated_at AS TIMESTAMPTZ) AS updated_at,
    run_id,
    fetched_at AS crawled_at
FROM source;
