-- @table marts.watch_next: From your watch list (興味ありの中からおすすめ) of the latest run: for
--   every member, the games they marked 興味あり (watching) and neither have (持ってる) nor played
--   (経験あり), ranked by the night's champion, with a reason; at most 100 per member. These games
--   are never in the member's marts.recommendations. Replaced as a whole by each run
--   (warehouse.model_marts.replace_table).
-- @key user_id, rank
-- @join user_id -> marts.members
-- @join game_id -> marts.games
-- @join user_id, game_id -> marts.collections
-- @column user_id: The member (marts.members.user_id).
-- @column rank: Position in the member's list, 1 = the one to go for first.
-- @column game_id: A game on the member's watch list (marts.games.game_id).
-- @column score: The blended score (champion, content similarity, popularity) on the member's own
--   scale: it orders one member's list and is not comparable across members.
-- @column reason: Why, in Japanese, naming a game the member played, has or loves (e.g.
--   「X」が好きなあなたに), never another game of the watch list and never another member.
-- @column run_id: The training run (marts.model_runs.run_id) whose champion ranked it.
CREATE TABLE IF NOT EXISTS marts.watch_next (
    {{ columns.shelf }}
);
