-- Rule/instruction and review posts, latest fetch per post.
CREATE TABLE IF NOT EXISTS raw.posts (
    post_id        VARCHAR PRIMARY KEY,
    game_id        VARCHAR,
    post_kind      VARCHAR NOT NULL,
    author_user_id VARCHAR,               -- NULL when the author's collection is private
    title          VARCHAR,
    body           VARCHAR,
    published_at   VARCHAR,               -- as published (ISO 8601 with offset)
    run_id         VARCHAR NOT NULL,
    fetched_at     TIMESTAMPTZ NOT NULL
);
