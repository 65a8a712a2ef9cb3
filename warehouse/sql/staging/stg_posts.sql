-- @table staging.stg_posts: Rule and review posts with typed publication times.
-- @key post_id
-- @inherit raw.posts
-- @column published_at: When the post was published (the published time, typed); NULL where
--   the page shows none or it does not parse.
-- @column crawled_at: When the crawl that last read the post wrote it (raw fetched_at), UTC.
CREATE OR REPLACE VIEW staging.stg_posts AS
WITH source AS (
    SELECT * FROM raw.posts
)
SELECT
    post_id, game_id, post_kind, author_user_id, title, body,
    TRY_CAST(published_at AS TIMESTAMPTZ) AS published_at,
    run_id, fetched_at AS crawled_at
FROM source;
