-- marts.game_popularity: members' statuses aggregated from public collections against the
-- site's own counters (which also count private members), ratios, the "wanted but not
-- owned" gap, the change of the site's counters since the previous crawl, and each game's
-- popularity rank (1 = most members have it in their collection) and decile (1 = the 10%
-- most popular), which the dashboard's popularity-bias charts read.
CREATE OR REPLACE TABLE marts.game_popularity AS
WITH members_agg AS (
    SELECT
        game_id,
        count(*) AS n_members,
        count(*) FILTER (WHERE have) AS members_have,
        count(*) FILTER (WHERE played) AS members_played,
        count(*) FILTER (WHERE favorite) AS members_favorite,
        count(*) FILTER (WHERE watching) AS members_watching,
        count(*) FILTER (WHERE watching AND NOT have) AS wanted_not_owned,
        count(rating) AS n_ratings,
        avg(rating)::DOUBLE AS avg_rating
    FROM marts.collections
    GROUP BY game_id
),
latest_counters AS (
    SELECT * FROM staging.stg_game_counters
    QUALIFY row_number() OVER (PARTITION BY game_id ORDER BY crawled_at DESC, run_id DESC) = 1
)
SELECT
    g.game_id, g.name_ja, g.name_en,
    coalesce(m.n_members, 0) AS n_members,
    coalesce(m.members_have, 0) AS members_have,
    coalesce(m.members_played, 0) AS members_played,
    coalesce(m.members_favorite, 0) AS members_favorite,
    coalesce(m.members_watching, 0) AS members_watching,
    coalesce(m.wanted_not_owned, 0) AS wanted_not_owned,
    m.n_ratings, m.avg_rating,
    g.n_have AS site_have, g.n_played AS site_played,
    g.n_favorite AS site_favorite, g.n_watching AS site_watching,
    m.members_have::DOUBLE / nullif(m.n_members, 0) AS owned_ratio,
    m.members_played::DOUBLE / nullif(m.n_members, 0) AS played_ratio,
    m.members_watching::DOUBLE / nullif(m.n_members, 0) AS watching_ratio,
    g.n_have - c.prev_n_have AS site_have_change,
    g.n_played - c.prev_n_played AS site_played_change,
    g.n_favorite - c.prev_n_favorite AS site_favorite_change,
    g.n_watching - c.prev_n_watching AS site_watching_change,
    row_number() OVER (ORDER BY coalesce(m.n_members, 0) DESC, g.game_id) AS popularity_rank,
    least(10, 1 + floor((popularity_rank - 1) * 10 / count(*) OVER ()))::INTEGER AS popularity_decile
FROM marts.games g
LEFT JOIN members_agg m USING (game_id)
LEFT JOIN latest_counters c USING (game_id)
ORDER BY members_have DESC, game_id;
