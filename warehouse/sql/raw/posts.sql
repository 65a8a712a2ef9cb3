-- @table raw.posts: Rule/instruction and review posts (/games/<slug>/rules/<id>,
--   /games/<slug>/reviews/<id>), the latest fetch per post.
-- @key post_id
-- @join game_id -> raw.games
-- @join author_user_id -> raw.members(user_id)
-- @column post_id: The post's id on the site.
-- @column game_id: The game the post is about (its slug); NULL where the page names none.
-- @column post_kind: rule (a rule or instruction write-up) or review.
-- @column author_user_id: The author's user_id; NULL when the author's collection is private
--   (a private member leaves no trace) or the page names no author.
-- @column title: The post's title.
-- @column body: The post's text.
-- @column published_at: When the post was published, as published (ISO 8601 text with its
--   offset); NULL where the page shows none.
-- @column run_id: The crawl run (raw.crawl_runs.run_id) that last read the post.
-- @column fetched_at: When that crawl wrote this row (UTC).
CREATE TABLE IF NOT EXISTS raw.posts (
    post_id        VARCHAR PRIMARY KEY,
    game_id        VARCHAR,
    post_kind      VARCHAR NOT NULL,
    author_user_id VARCHAR,
    title          VARCHAR,
    body           VARCHAR,
    published_at   VARCHAR,
    run_id         VARCHAR NOT NULL,
    fetched_at     TIMESTAMPTZ NOT NULL
);
