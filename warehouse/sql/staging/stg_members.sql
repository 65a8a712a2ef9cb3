-- @table staging.stg_members: Public members: directory rows plus members whose collection was
--   crawled to a known outcome (e.g. first seen as the author of a post), one row each.
-- @key user_id
-- @inherit raw.members
-- @column name: The member's display name from the directory; NULL for a member seen only
--   through their collection.
-- @column crawled_at: The latest time a crawl saw the member (directory row or collection), UTC.
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
