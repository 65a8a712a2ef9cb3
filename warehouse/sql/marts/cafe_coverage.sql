-- marts.cafe_coverage: for each cafe, how much of what members want it offers
-- (members' watching and favourite games).
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
