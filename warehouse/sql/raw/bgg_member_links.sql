-- @table raw.bgg_member_links: Site members linked to a BoardGameGeek user, exactly as the site
--   team's links file (user_id,bgg_user) said at the last BGG sync; replaced whole by each sync, so
--   an unlinked member disappears here and from everything built on it.
-- @key user_id
-- @column user_id: The member's id on the site (/friends/<id>).
-- @column bgg_user: Their BGG user name.
-- @column run_id: The BGG sync run that loaded the links file.
-- @column fetched_at: When it was loaded (UTC).
CREATE TABLE IF NOT EXISTS raw.bgg_member_links (
    user_id    VARCHAR PRIMARY KEY,
    bgg_user   VARCHAR NOT NULL,
    run_id     VARCHAR NOT NULL,
    fetched_at TIMESTAMPTZ NOT NULL
);
