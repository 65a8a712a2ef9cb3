-- marts.next_to_play: play next (積みゲー) of the latest run: for every member, the games
-- they have (持ってる) and have not played (経験あり), ranked by the champion, with a reason.
-- Key (user_id, rank). Replaced as a whole by each run (warehouse.model_marts.replace_table).
CREATE TABLE IF NOT EXISTS marts.next_to_play (
    user_id VARCHAR NOT NULL,
    rank INTEGER NOT NULL,
    game_id VARCHAR NOT NULL,
    score DOUBLE,
    reason VARCHAR,
    run_id VARCHAR
);
