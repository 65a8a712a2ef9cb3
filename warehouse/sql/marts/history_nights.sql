-- @table marts.history_nights: The nights that recorded the members' collections in
--   marts.collection_history, numbered in order: "7 nights after" a served night is the night
--   numbered 7 higher. A night run again keeps its number (warehouse.outcomes.history).
-- @key night_no
-- @join night_id -> marts.nights
-- @column night_no: The night's number, 1 for the first night that recorded collections.
-- @column night_id: The night (marts.nights.night_id).
-- @column recorded_at: When its collections were recorded (UTC).
CREATE TABLE IF NOT EXISTS marts.history_nights (
    night_no INTEGER PRIMARY KEY,
    night_id VARCHAR NOT NULL UNIQUE,
    recorded_at TIMESTAMPTZ NOT NULL
);
