-- A member's shelf of games, ranked by the night's champion with a reason: play next
-- (marts.next_to_play) and the watch list (marts.watch_next) are both this shape, declared
-- here once so that the dashboard, the export and the readers read them alike.
user_id VARCHAR NOT NULL,
rank INTEGER NOT NULL,
game_id VARCHAR NOT NULL,
score DOUBLE,
reason VARCHAR,
run_id VARCHAR
