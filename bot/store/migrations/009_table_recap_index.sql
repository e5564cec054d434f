-- A table's settled hands in all (`/ofc recap`, the recap of a closing table): found by an index
-- that holds what the recap reads of them, so their rows (with their large state and log) are
-- not read.

CREATE INDEX IF NOT EXISTS hands_by_table_done
    ON hands (table_id, status, id, created_at, finished_at);
