-- The totals of each game (ofc, pineapple, chinese) apart: `/ofc leaderboard variant`.  Kept
-- like `standings` (migration 005), by a trigger as results are written; a result's game is
-- its hand's (hands.rules; ofc, the rules' default, when they do not say).
-- Store.verify_ledger checks them against the results.  (SQLite's JSON functions: built in
-- since SQLite 3.38, and in the usual builds before it.)

CREATE TABLE variant_standings (
    guild_id      INTEGER NOT NULL,
    variant       TEXT NOT NULL,
    user_id       INTEGER NOT NULL,
    name          TEXT NOT NULL DEFAULT '',
    units         INTEGER NOT NULL DEFAULT 0,
    points        INTEGER NOT NULL DEFAULT 0,
    hands         INTEGER NOT NULL DEFAULT 0,
    fantasylands  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (guild_id, variant, user_id)
);

INSERT INTO variant_standings
    (guild_id, variant, user_id, name, units, points, hands, fantasylands)
SELECT r.guild_id, v.variant, r.user_id, MAX(r.name),
       COALESCE(SUM(l.amount), 0),
       SUM(COALESCE(r.ranked_points, r.points)),
       COUNT(*),
       SUM(r.fantasyland)
FROM results r
JOIN (SELECT id, COALESCE(CASE WHEN json_valid(rules) THEN json_extract(rules, '$.variant') END,
                          'ofc') AS variant
      FROM hands) v ON v.id = r.hand_id
LEFT JOIN ledger l ON l.hand_id = r.hand_id AND l.user_id = r.user_id AND l.kind = 'hand'
WHERE r.counted = 1 AND r.is_bot = 0
GROUP BY r.guild_id, v.variant, r.user_id;

CREATE TRIGGER results_to_variant_standings AFTER INSERT ON results
WHEN NEW.counted = 1 AND NEW.is_bot = 0
BEGIN
    INSERT INTO variant_standings
        (guild_id, variant, user_id, name, units, points, hands, fantasylands)
    VALUES (
        NEW.guild_id,
        COALESCE((SELECT CASE WHEN json_valid(rules) THEN json_extract(rules, '$.variant') END
                  FROM hands WHERE id = NEW.hand_id), 'ofc'),
        NEW.user_id, NEW.name,
        (SELECT COALESCE(SUM(amount), 0) FROM ledger
          WHERE hand_id = NEW.hand_id AND user_id = NEW.user_id AND kind = 'hand'),
        COALESCE(NEW.ranked_points, NEW.points), 1, NEW.fantasyland
    )
    ON CONFLICT (guild_id, variant, user_id) DO UPDATE SET
        name = max(name, excluded.name),
        units = units + excluded.units,
        points = points + excluded.points,
        hands = hands + 1,
        fantasylands = fantasylands + excluded.fantasylands;
END;

CREATE TRIGGER variant_standings_no_delete BEFORE DELETE ON variant_standings
BEGIN
    SELECT RAISE(ABORT, 'standings follow the results; they are not deleted');
END;
