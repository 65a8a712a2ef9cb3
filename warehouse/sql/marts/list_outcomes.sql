-- @table marts.list_outcomes: Did the lists come true? For each night that served lists, each list
--   and each window of 1, 7 or 30 nights: the members served who acted within the window, and the
--   share of them who acted on a game of their served top 10, beside the same share for a
--   popularity baseline and for the previous night's champion, each with a bootstrap 95 %
--   interval. What members did is read from marts.collection_history (what they held on the
--   served night against what they held that many nights later); the lists from
--   marts.served_lists. A row is added the night its window closes (incrementally) and kept.
--   The act: discovery = a game added to the collection (any status); play_next = an owned game
--   (持ってる) marked played (経験あり); watch_list = a 興味あり game (neither owned nor played) moved
--   to 持ってる or 経験あり. The popularity baseline: discovery's 10 most-collected games the
--   member did not hold; a shelf's 10 most-collected games among the member's own candidates
--   (owned unplayed games, watched games), most-collected as of the served night.
-- @key served_night_id, list_kind, nights_after
-- @join served_night_id -> marts.nights(night_id)
-- @join outcome_night_id -> marts.nights(night_id)
-- @column served_night_id: The night that served the lists (marts.served_lists.night_id).
-- @column list_kind: discovery, watch_list or play_next.
-- @column nights_after: The window: 1, 7 or 30 nights after the served night.
-- @column outcome_night_id: The night that many nights later whose collections were compared.
-- @column served: Members served this list that night.
-- @column members: Of them, the members who acted within the window (the denominator of the rates).
-- @column hits: Of those, the members who acted on a game of their served top 10.
-- @column hit_rate_at_10: hits / members (NULL when no member acted).
-- @column hit_rate_low: Lower end of its bootstrap 95 % interval (members resampled).
-- @column hit_rate_high: Upper end of its bootstrap 95 % interval.
-- @column popularity_hit_rate_at_10: The same rate for the popularity baseline's 10 games.
-- @column popularity_low: Lower end of its bootstrap 95 % interval.
-- @column popularity_high: Upper end of its bootstrap 95 % interval.
-- @column previous_run_id: The training run (marts.model_runs.run_id) of the night before the served
--   night, whose champion ranked the counterfactual lists: the served lists where it chose the
--   same champion, else that champion fitted again on the served night's collections; NULL for
--   the shelves and a first night.
-- @column previous_members: Members who acted that the previous champion could rank (its rate's
--   denominator).
-- @column previous_hit_rate_at_10: The rate for the previous champion's top 10, ranked for the same
--   members from what they held on the served night.
-- @column previous_low: Lower end of its bootstrap 95 % interval.
-- @column previous_high: Upper end of its bootstrap 95 % interval.
-- @column computed_at: When the row was computed (UTC).
CREATE TABLE IF NOT EXISTS marts.list_outcomes (
    served_night_id VARCHAR NOT NULL,
    list_kind VARCHAR NOT NULL,
    nights_after INTEGER NOT NULL,
    outcome_night_id VARCHAR NOT NULL,
    served INTEGER NOT NULL,
    members INTEGER NOT NULL,
    hits INTEGER NOT NULL,
    hit_rate_at_10 DOUBLE,
    hit_rate_low DOUBLE,
    hit_rate_high DOUBLE,
    popularity_hit_rate_at_10 DOUBLE,
    popularity_low DOUBLE,
    popularity_high DOUBLE,
    previous_run_id VARCHAR,
    previous_members INTEGER,
    previous_hit_rate_at_10 DOUBLE,
    previous_low DOUBLE,
    previous_high DOUBLE,
    computed_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (served_night_id, list_kind, nights_after)
);
