-- A player's counted hands (/ofc stats) by an index of their own: without it SQLite chose
-- results_by_guild (guild, counted, is_bot) and read every result of the server.  It covers
-- what results_by_user (guild, user) did, which goes.

CREATE INDEX results_by_player ON results (guild_id, user_id, counted, is_bot);
DROP INDEX results_by_user;
