-- Directory rows plus members first seen as post authors (their collection crawled).
CREATE OR REPLACE VIEW staging.stg_members AS
WITH listed AS (
    SELECT user_id, name, fetched_at FROM raw.members
),
crawled AS (
    SELECT key AS user_id, NULL::VARCHAR AS name, fetched_at
    FROM raw.listing_crawls
    WHERE listing = 'collection' AND status IN ('public', 'empty', 'incomplete', 'updated', 'unchanged')
)
SELECT user_id, any_value(name) FILTER (WHERE name IS NOT NULL) AS name, max(fetched_at) AS crawled_at
FROM (SELECT * FROM listed UNION ALL SELECT * FROM crawled)
GROUP BY user_id;
