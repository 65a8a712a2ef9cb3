-- @table marts.member_profiles: What each public member's collection looks like: its size, the
--   status mix, the player counts and play times of what they own (持ってる), and their favourite
--   mechanics and themes. One row per row of marts.members; the n_* columns count this member's
--   own entries (not the site's counters of marts.games.n_*).
-- @key user_id
-- @inherit marts.members
-- @join user_id -> marts.members
-- @column n_games: Entries in the member's public collection, any status; 0 when empty.
-- @column n_have: The member's entries marked 持ってる (have): games they own. Not to be confused
--   with marts.games.n_have (members owning one game).
-- @column n_played: The member's entries marked 経験あり (played).
-- @column n_favorite: The member's entries marked お気に入り (favorite).
-- @column n_watching: The member's entries marked 興味あり (watching).
-- @column n_ratings: The member's entries with a star rating; NULL for an empty collection.
-- @column avg_rating: The member's mean star rating (1-5); NULL when they rated nothing.
-- @column owned_solo: Owned games playable with 1 player (marts.games' rule: players_from <= 1 <=
--   players_to); NULL for an empty collection.
-- @column owned_for_2: Owned games playable with 2 players; NULL for an empty collection.
-- @column owned_for_4: Owned games playable with 4 players; NULL for an empty collection.
-- @column owned_for_6: Owned games playable with 6 players; NULL for an empty collection.
-- @column owned_median_minutes: Median of minutes_to (longest play time, minutes) over owned
--   games; NULL when they own none with a known time.
-- @column owned_median_max_players: Median of players_to (most players) over owned games; NULL
--   when they own none with a known player count.
-- @column top_mechanics: Up to three mechanics most frequent among the member's liked games
--   (お気に入り or rated 4+), most frequent first, ties by name; an empty list when none.
-- @column top_themes: Up to three themes most frequent among the member's liked games (お気に入り or
--   rated 4+), most frequent first, ties by name; an empty list when none.
-- @column last_updated_at: The latest updated_at of the member's entries; NULL when none is known.
CREATE OR REPLACE TABLE marts.member_profiles AS
WITH entries AS (
    SELECT c.*, g.players_from, g.players_to, g.minutes_to, g.mechanics, g.themes
    FROM marts.collections c
    LEFT JOIN marts.games g USING (game_id)
),
stats AS (
    SELECT
        user_id,
        count(*) AS n_games,
        count(*) FILTER (WHERE have) AS n_have,
        count(*) FILTER (WHERE played) AS n_played,
        count(*) FILTER (WHERE favorite) AS n_favorite,
        count(*) FILTER (WHERE watching) AS n_watching,
        count(rating) AS n_ratings,
        avg(rating)::DOUBLE AS avg_rating,
        count(*) FILTER (WHERE have AND marts.playable_with(players_from, players_to, 2)) AS owned_for_2,
        count(*) FILTER (WHERE have AND marts.playable_with(players_from, players_to, 4)) AS owned_for_4,
        count(*) FILTER (WHERE have AND marts.playable_with(players_from, players_to, 6)) AS owned_for_6,
        count(*) FILTER (WHERE have AND marts.playable_with(players_from, players_to, 1)) AS owned_solo,
        median(minutes_to) FILTER (WHERE have) AS owned_median_minutes,
        median(players_to) FILTER (WHERE have) AS owned_median_max_players,
        max(updated_at) AS last_updated_at
    FROM entries
    GROUP BY user_id
),
liked AS (
    -- favourite or well-rated (4+) games stand for taste
    SELECT user_id, mechanics, themes FROM entries WHERE favorite OR rating >= 4
),
labels AS (
    SELECT user_id, 'mechanic' AS kind, unnest(mechanics) AS label FROM liked
    UNION ALL
    SELECT user_id, 'theme' AS kind, unnest(themes) AS label FROM liked
),
top_labels AS (
    -- each member's three most frequent liked mechanics and themes, ties by name
    SELECT user_id, kind, list(label ORDER BY n DESC, label)[1:3] AS top
    FROM (SELECT user_id, kind, label, count(*) AS n FROM labels GROUP BY ALL)
    GROUP BY user_id, kind
),
taste AS (
    SELECT user_id,
           any_value(top) FILTER (WHERE kind = 'mechanic') AS top_mechanics,
           any_value(top) FILTER (WHERE kind = 'theme') AS top_themes
    FROM top_labels
    GROUP BY user_id
)
SELECT
    m.user_id, m.name,
    coalesce(s.n_games, 0) AS n_games, coalesce(s.n_have, 0) AS n_have,
    coalesce(s.n_played, 0) AS n_played, coalesce(s.n_favorite, 0) AS n_favorite,
    coalesce(s.n_watching, 0) AS n_watching, s.n_ratings, s.avg_rating,
    s.owned_solo, s.owned_for_2, s.owned_for_4, s.owned_for_6,
    s.owned_median_minutes, s.owned_median_max_players,
    coalesce(taste.top_mechanics, []) AS top_mechanics,
    coalesce(taste.top_themes, []) AS top_themes,
    s.last_updated_at
FROM marts.members m
LEFT JOIN stats s USING (user_id)
LEFT JOIN taste USING (user_id)
ORDER BY m.user_id;
