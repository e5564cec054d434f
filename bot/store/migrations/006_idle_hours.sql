-- A server's tables close after this many hours with nothing happening (0: never), stacks back to
-- their owners' balances: a table forgotten by its players no longer holds its channel (one
-- table a channel) and their units.

ALTER TABLE servers ADD COLUMN idle_hours INTEGER NOT NULL DEFAULT 24 CHECK (idle_hours >= 0);
