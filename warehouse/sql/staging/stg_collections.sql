-- Public collection cards with typed timestamps. Private members never reach raw.
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
