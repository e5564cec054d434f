-- A player's last hands at every table of the server (`/ofc history mine`), newest first, by an
-- index in that order: without it SQLite sorted every result of the player.

CREATE INDEX IF NOT EXISTS results_by_player_time ON results (guild_id, user_id, finished_at);
