-- OFC Table: initial schema.
--
-- Money model: every unit lives in exactly one account, and every movement is a row of
-- `ledger`.  A player's wallet in a server is SUM(amount) over
-- (guild_id, user_id, account = 'balance'); a stack at a table is SUM(amount) over
-- (table_id, user_id, account = 'stack').  Nothing else stores a balance.
-- All ids are Discord snowflakes or SQLite rowids (INTEGER); times are unix seconds (REAL).

CREATE TABLE servers (
    guild_id       INTEGER PRIMARY KEY,
    start_balance  INTEGER NOT NULL CHECK (start_balance >= 0),
    max_stake      INTEGER NOT NULL CHECK (max_stake >= 0),
    default_buyin  INTEGER NOT NULL CHECK (default_buyin >= 0),
    max_buyin      INTEGER NOT NULL CHECK (max_buyin >= 0),
    default_timer  INTEGER NOT NULL CHECK (default_timer > 0),
    admin_role_id  INTEGER,
    updated_at     REAL NOT NULL
);

CREATE TABLE players (
    guild_id    INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,
    name        TEXT NOT NULL DEFAULT '',
    created_at  REAL NOT NULL,
    updated_at  REAL NOT NULL,
    PRIMARY KEY (guild_id, user_id)
);

CREATE TABLE tables (
    id          INTEGER PRIMARY KEY,
    guild_id    INTEGER NOT NULL,
    channel_id  INTEGER NOT NULL,
    creator_id  INTEGER NOT NULL,
    rules       TEXT NOT NULL DEFAULT '{}',
    stake       INTEGER NOT NULL CHECK (stake >= 0),
    buyin       INTEGER NOT NULL CHECK (buyin >= 0),
    max_seats   INTEGER NOT NULL CHECK (max_seats >= 1),
    status      TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closing', 'closed')),
    message_id  INTEGER,
    button      INTEGER NOT NULL DEFAULT 0,
    hand_no     INTEGER NOT NULL DEFAULT 0,
    extra       TEXT NOT NULL DEFAULT '{}',
    created_at  REAL NOT NULL,
    updated_at  REAL NOT NULL,
    closed_at   REAL
);
-- One table per channel that is not closed.
CREATE UNIQUE INDEX tables_one_open_per_channel ON tables (channel_id) WHERE status != 'closed';
CREATE INDEX tables_by_guild ON tables (guild_id);
CREATE INDEX tables_by_status ON tables (status);

CREATE TABLE seats (
    id          INTEGER PRIMARY KEY,
    table_id    INTEGER NOT NULL REFERENCES tables (id),
    seat_no     INTEGER NOT NULL CHECK (seat_no >= 0),
    guild_id    INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,
    name        TEXT NOT NULL DEFAULT '',
    is_bot      INTEGER NOT NULL DEFAULT 0 CHECK (is_bot IN (0, 1)),
    bot_level,  -- untyped: whatever the caller stores (str or int) comes back unchanged
    buyin       INTEGER NOT NULL DEFAULT 0 CHECK (buyin >= 0),
    sitting_out INTEGER NOT NULL DEFAULT 0 CHECK (sitting_out IN (0, 1)),
    leaving     INTEGER NOT NULL DEFAULT 0 CHECK (leaving IN (0, 1)),
    joined_at   REAL NOT NULL,
    left_at     REAL
);
CREATE UNIQUE INDEX seats_one_per_seat ON seats (table_id, seat_no) WHERE left_at IS NULL;
CREATE UNIQUE INDEX seats_one_per_user ON seats (table_id, user_id) WHERE left_at IS NULL;

CREATE TABLE hands (
    id           INTEGER PRIMARY KEY,
    table_id     INTEGER NOT NULL REFERENCES tables (id),
    number       INTEGER NOT NULL,
    seed         TEXT NOT NULL,
    rules        TEXT NOT NULL DEFAULT '{}',
    state        TEXT NOT NULL DEFAULT '{}',
    log          TEXT NOT NULL DEFAULT '[]',
    status       TEXT NOT NULL DEFAULT 'playing' CHECK (status IN ('playing', 'done', 'aborted')),
    deadline     REAL,
    created_at   REAL NOT NULL,
    updated_at   REAL NOT NULL,
    finished_at  REAL,
    -- MAX(ledger.id) right after the hand was settled: the ledger prefix "as of" this hand.
    ledger_seq   INTEGER,
    UNIQUE (table_id, number)
);
CREATE UNIQUE INDEX hands_one_playing_per_table ON hands (table_id) WHERE status = 'playing';

-- One row per settled hand: the primary key makes a second settlement impossible.
CREATE TABLE hand_settlements (
    hand_id     INTEGER PRIMARY KEY REFERENCES hands (id),
    applied_at  REAL NOT NULL
);

CREATE TABLE results (
    hand_id      INTEGER NOT NULL REFERENCES hands (id),
    seat_no      INTEGER NOT NULL,
    user_id      INTEGER NOT NULL,
    guild_id     INTEGER NOT NULL,
    name         TEXT NOT NULL DEFAULT '',
    points       INTEGER NOT NULL,
    units        INTEGER NOT NULL,
    fouled       INTEGER NOT NULL DEFAULT 0 CHECK (fouled IN (0, 1)),
    royalties    INTEGER NOT NULL DEFAULT 0,
    fantasyland  INTEGER NOT NULL DEFAULT 0 CHECK (fantasyland IN (0, 1)),
    surrendered  INTEGER NOT NULL DEFAULT 0 CHECK (surrendered IN (0, 1)),
    natural      TEXT,
    is_bot       INTEGER NOT NULL DEFAULT 0 CHECK (is_bot IN (0, 1)),
    counted      INTEGER NOT NULL DEFAULT 1 CHECK (counted IN (0, 1)),
    finished_at  REAL NOT NULL,
    PRIMARY KEY (hand_id, seat_no),
    UNIQUE (hand_id, user_id)
);
CREATE INDEX results_by_guild ON results (guild_id, counted, is_bot, finished_at);
CREATE INDEX results_by_user ON results (guild_id, user_id);

CREATE TABLE audit (
    id             INTEGER PRIMARY KEY,
    guild_id       INTEGER NOT NULL,
    by_user_id     INTEGER NOT NULL,
    user_id        INTEGER NOT NULL,
    amount         INTEGER NOT NULL CHECK (amount != 0),
    reason         TEXT NOT NULL DEFAULT '',
    balance_after  INTEGER NOT NULL,
    created_at     REAL NOT NULL
);
CREATE INDEX audit_by_guild ON audit (guild_id, id);

CREATE TABLE ledger (
    id          INTEGER PRIMARY KEY,
    guild_id    INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,
    account     TEXT NOT NULL CHECK (account IN ('balance', 'stack')),
    kind        TEXT NOT NULL CHECK (kind IN ('start', 'grant', 'buyin', 'cashout', 'hand')),
    amount      INTEGER NOT NULL CHECK (amount != 0),
    table_id    INTEGER REFERENCES tables (id),
    seat_id     INTEGER REFERENCES seats (id),
    hand_id     INTEGER REFERENCES hands (id),
    audit_id    INTEGER REFERENCES audit (id),
    created_at  REAL NOT NULL,
    CHECK (account = 'balance' OR table_id IS NOT NULL),
    CHECK (
        (kind = 'start' AND account = 'balance' AND hand_id IS NULL AND seat_id IS NULL)
        OR (kind = 'grant' AND account = 'balance' AND audit_id IS NOT NULL)
        OR (kind IN ('buyin', 'cashout') AND seat_id IS NOT NULL AND table_id IS NOT NULL
            AND hand_id IS NULL)
        OR (kind = 'hand' AND account = 'stack' AND hand_id IS NOT NULL)
    )
);
-- The start balance is given once per player and server.
CREATE UNIQUE INDEX ledger_one_start ON ledger (guild_id, user_id) WHERE kind = 'start';
-- A hand moves a player's units at most once.
CREATE UNIQUE INDEX ledger_hand_once ON ledger (hand_id, user_id) WHERE kind = 'hand';
-- A seat is bought into once and cashed out once (one row per account each).
CREATE UNIQUE INDEX ledger_transfer_once ON ledger (seat_id, kind, account)
    WHERE kind IN ('buyin', 'cashout');
CREATE INDEX ledger_by_balance ON ledger (guild_id, user_id, account);
CREATE INDEX ledger_by_stack ON ledger (table_id, user_id, account);
CREATE INDEX ledger_by_hand ON ledger (hand_id);
