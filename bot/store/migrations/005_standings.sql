-- The all-time leaderboard's totals, kept as results are written: without them the board
-- read every counted result of the server (and its ledger rows) under the store's lock,
-- about 200 ms on a server of 25,000 hands.  One row per human with a counted hand; a
-- result row inserts or adds to it in the same transaction (results are append-only, so
-- the totals never need taking back).  Store.verify_ledger checks them against the results.
-- `name` is the greatest name of the player's results, as the board showed before.

CREATE TABLE standings (
    guild_id      INTEGER NOT NULL,
    user_id       INTEGER NOT NULL,
    name          TEXT NOT NULL DEFAULT '',
    units         INTEGER NOT NULL DEFAULT 0,
    points        INTEGER NOT NULL DEFAULT 0,
    hands         INTEGER NOT NULL DEFAULT 0,
    fantasylands  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (guild_id, user_id)
);

INSERT INTO standings (guild_id, user_id, name, units, points, hands, fantasylands)
SELECT r.guild_id, r.user_id, MAX(r.name),
       COALESCE(SUM(l.amount), 0),
       SUM(COALESCE(r.ranked_points, r.points)),
       COUNT(*),
       SUM(r.fantasyland)
FROM results r
LEFT JOIN ledger l ON l.hand_id = r.hand_id AND l.user_id = r.user_id AND l.kind = 'hand'
WHERE r.counted = 1 AND r.is_bot = 0
GROUP BY r.guild_id, r.user_id;

CREATE TRIGGER results_to_standings AFTER INSERT ON results
WHEN NEW.counted = 1 AND NEW.is_bot = 0
BEGIN
    INSERT INTO standings (guild_id, user_id, name, units, points, hands, fantasylands)
    VALUES (
        NEW.guild_id, NEW.user_id, NEW.name,
        (SELECT COALESCE(SUM(amount), 0) FROM ledger
          WHERE hand_id = NEW.hand_id AND user_id = NEW.user_id AND kind = 'hand'),
        COALESCE(NEW.ranked_points, NEW.points), 1, NEW.fantasyland
    )
    ON CONFLICT (guild_id, user_id) DO UPDATE SET
        name = max(name, excluded.name),
        units = units + excluded.units,
        points = points + excluded.points,
        hands = hands + 1,
        fantasylands = fantasylands + excluded.fantasylands;
END;

-- The totals are the results' and the ledger's, never written by hand.
CREATE TRIGGER standings_no_delete BEFORE DELETE ON standings
BEGIN
    SELECT RAISE(ABORT, 'standings follow the results; they are not deleted');
END;
