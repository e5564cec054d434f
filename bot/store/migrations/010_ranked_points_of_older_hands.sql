-- Points against humans (`ranked_points`, migration 003) of the results written before it at
-- hands with a bot: left NULL, read as all their points, so points won from a bot counted in
-- the leaderboards and stats.  This migration's step in Python (bot/store/store.py,
-- `_ranked_points_of_older_hands`) works them out from each hand's final state (its
-- settlement between each pair, the pairs with a bot left out) and corrects the standings
-- (migrations 005 and 007) by the difference.  Results stay append-only: their trigger is
-- dropped for the step and created again after it.

DROP TRIGGER results_no_update;

-- (step)

CREATE TRIGGER results_no_update BEFORE UPDATE ON results
BEGIN
    SELECT RAISE(ABORT, 'hand results are append-only');
END;
