-- Discovery holds no game of the member's own collection: their 興味あり games are on their own
-- shelf (marts.watch_next), so marts.recommendations has no column flagging them.
ALTER TABLE IF EXISTS marts.recommendations DROP COLUMN IF EXISTS watching;
