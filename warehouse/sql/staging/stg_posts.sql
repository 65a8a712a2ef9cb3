-- Rule and review posts with typed publication times.
CREATE OR REPLACE VIEW staging.stg_posts AS
WITH source AS (
    SELECT * FROM raw.posts
)
SELECT
    post_id, game_id, post_kind, author_user_id, title, body,
    TRY_CAST(published_at AS TIMESTAMPTZ) AS published_at,
    run_id, fetched_at AS crawled_at
FROM source;
