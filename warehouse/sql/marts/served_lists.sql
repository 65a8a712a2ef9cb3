-- @table marts.served_lists: The exposure log: what each published night served, one row per
--   member and list: the top 10 the site shows of the discovery list (marts.recommendations), the
--   watch list (marts.watch_next) and play next (marts.next_to_play), with their scores and the
--   champion that ranked them. Kept for the last 31 nights that recorded a collection
--   (marts.history_nights), so marts.list_outcomes can score a list 30 nights on; a night that
--   released no bundle leaves it on the next night; a member who turns private leaves it
--   (warehouse.outcomes.exposure).
-- @key night_id, list_kind, user_id
-- @join user_id -> marts.members
-- @join night_id -> marts.nights
-- @join run_id -> marts.model_runs
-- @column night_id: The night that served the lists (marts.nights.night_id).
-- @column list_kind: discovery, watch_list or play_next.
-- @column user_id: The member served (marts.members.user_id).
-- @column games: The list's top 10 game ids, best first: the game at position i had rank i.
-- @column scores: Their blended scores, in the same order (on the member's own scale).
-- @column welcome: True for a discovery list that is a welcome list (nothing personal to say).
-- @column run_id: The training run whose champion ranked the list (marts.model_runs.run_id).
-- @column model: That champion's name (marts.model_runs.model).
CREATE TABLE IF NOT EXISTS marts.served_lists (
    night_id VARCHAR NOT NULL,
    list_kind VARCHAR NOT NULL,
    user_id VARCHAR NOT NULL,
    games VARCHAR[] NOT NULL,
    scores FLOAT[] NOT NULL,
    welcome BOOLEAN,
    run_id VARCHAR,
    model VARCHAR,
    PRIMARY KEY (night_id, list_kind, user_id)
);
