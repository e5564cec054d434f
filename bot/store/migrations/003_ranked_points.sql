-- Points that count in the leaderboards and stats: against humans only (a hand's points
-- against bots move no units and rank nothing).  NULL (rows written before) means `points`.

ALTER TABLE results ADD COLUMN ranked_points INTEGER;
