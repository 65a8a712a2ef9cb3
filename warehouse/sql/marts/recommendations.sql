-- @table marts.recommendations: Each member's discovery list of the latest run, best first
--   (docs/interface.md): the top 100 games of marts.games the member does not know yet (no entry in
--   their collection: never a game marked 持ってる, 経験あり, お気に入り or 興味あり; the member's
--   興味あり games are ranked in marts.watch_next instead), ranked by the night's champion
--   blended with content similarity and popularity, each with a reason. Every public member has
--   rows: a member with an empty collection, or one the model could say nothing personal about,
--   gets a welcome list (welcome = true: the games most held by members like them, else by
--   everyone; models.discovery.welcome). Replaced as a whole by each run
--   (warehouse.model_marts.replace_table).
-- @key user_id, rank
-- @join user_id -> marts.members
-- @join game_id -> marts.games
-- @join run_id, model -> marts.model_runs
-- @join night_id -> marts.nights
-- @column user_id: The member (marts.members.user_id).
-- @column rank: Position in the member's list, 1 = best.
-- @column game_id: The recommended game (marts.games.game_id).
-- @column score: The blended score on the member's own scale (in the first 10 slots the
--   diversity re-ranking's gain): it orders one member's list, never rises down the list, and is
--   not comparable across members.
-- @column model: The champion candidate that ranked it (marts.model_runs.model; its row of the
--   time split, split = 'time', is the one that named it champion).
-- @column run_id: The training run (marts.model_runs.run_id).
-- @column reason: Why, in Japanese, never naming another member: 「X」が好きなあなたに (you like X),
--   「X」に興味があるあなたに (you are interested in X: a member with only 興味あり games),
--   人気のゲーム (popular: nothing personal to go on), あなたへのおすすめ (for you, unattributed);
--   on a welcome list 好みの近いみんなが持っているゲーム (held by members holding the member's own
--   games) or みんなが持っているゲーム (held by many of the site's members).
-- @column generated_at: When the run's discovery step ranked the lists (UTC).
-- @column night_id: The night that wrote them (marts.nights.night_id, the Dagster run's id).
-- @column welcome: True on every row of a welcome list (the member has no collection, or none the
--   model could score: models.discovery.welcome), false on a personal list; NULL on rows of a
--   night from before welcome lists.
CREATE TABLE IF NOT EXISTS marts.recommendations (
    user_id VARCHAR NOT NULL,
    rank INTEGER NOT NULL,
    game_id VARCHAR NOT NULL,
    score DOUBLE,
    model VARCHAR,
    run_id VARCHAR,
    reason VARCHAR,
    generated_at TIMESTAMPTZ,
    night_id VARCHAR,
    welcome BOOLEAN
);
