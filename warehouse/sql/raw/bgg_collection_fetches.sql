-- @table raw.bgg_collection_fetches: How each linked BGG user's collection was last asked for: the
--   state the next sync's modifiedsince and full refetch are decided from.
-- @key bgg_user
-- @column bgg_user: The BGG user name.
-- @column status: full (the whole collection read), changes (only what changed since the last read,
--   via modifiedsince), not_ready (BGG kept answering 202 past the retry limit), unknown_user (BGG's
--   errors document) or failed (any other failure; the reason is in raw.quarantine).
-- @column n_items: Items the answer held (0 unless full or changes).
-- @column last_ok_at: When the collection was last read successfully (UTC), full or changes; what
--   the next modifiedsince asks from. NULL until the first success.
-- @column last_full_at: When it was last read whole (UTC); a full read is due again past the
--   maximum age, since modifiedsince cannot tell removals.
-- @column run_id: The BGG sync run of the latest attempt.
-- @column fetched_at: When the latest attempt was recorded (UTC).
CREATE TABLE IF NOT EXISTS raw.bgg_collection_fetches (
    bgg_user     VARCHAR PRIMARY KEY,
    status       VARCHAR NOT NULL,
    n_items      INTEGER NOT NULL,
    last_ok_at   TIMESTAMPTZ,
    last_full_at TIMESTAMPTZ,
    run_id       VARCHAR NOT NULL,
    fetched_at   TIMESTAMPTZ NOT NULL
);
