-- @table marts.cafe_coverage: For each cafe, how much of what members want it offers: "wants"
--   are entries of marts.collections marked 興味あり (watching) or お気に入り (favorite).
-- @key space_slug
-- @join space_slug -> marts.cafe_games
-- @inherit marts.cafe_games
-- @column n_games: Games the cafe offers (its rows of marts.cafe_games).
-- @column n_members_served: Members with at least one wanted game the cafe offers.
-- @column n_wanted_games_offered: Distinct games the cafe offers that at least one member wants.
-- @column n_wants_served: (member, game) wants the cafe can serve: entries marked 興味あり or
--   お気に入り whose game the cafe offers.
-- @column share_of_wants: n_wants_served divided by all wants of all members (0 to 1); NULL when
--   no member wants anything.
CREATE OR REPLACE TABLE marts.cafe_coverage AS
WITH wants AS (
    SELECT user_id, game_id FROM marts.collections WHERE watching OR favorite
),
offered AS (
    SELECT space_slug, any_value(space_name) AS space_name, count(*) AS n_games
    FROM marts.cafe_games GROUP BY space_slug
),
matched AS (
    SELECT
        cg.space_slug,
        count(DISTINCT w.user_id) AS n_members_served,
        count(DISTINCT w.game_id) AS n_wanted_games_offered,
        count(w.user_id) AS n_wants_served
    FROM marts.cafe_games cg
    JOIN wants w USING (game_id)
    GROUP BY cg.space_slug
)
SELECT
    o.space_slug, o.space_name, o.n_games,
    coalesce(m.n_members_served, 0) AS n_members_served,
    coalesce(m.n_wanted_games_offered, 0) AS n_wanted_games_offered,
    coalesce(m.n_wants_served, 0) AS n_wants_served,
    coalesce(m.n_wants_served, 0)::DOUBLE / nullif((SELECT count(*) FROM wants), 0) AS share_of_wants
FROM offered o
LEFT JOIN matched m USING (space_slug)
ORDER BY n_wants_served DESC, space_slug;
