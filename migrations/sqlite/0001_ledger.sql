-- The append-only evidence ledger: events, the Merkle nodes proofs read, signed checkpoints.

CREATE TABLE ledger_events (
    position  INTEGER PRIMARY KEY CHECK (position > 0),
    stream    TEXT    NOT NULL,
    version   INTEGER NOT NULL CHECK (version >= 0),
    type      TEXT    NOT NULL,
    canonical BLOB    NOT NULL,
    hash      BLOB    NOT NULL CHECK (length(hash) = 32),
    CONSTRAINT ledger_events_stream_version UNIQUE (stream, version)
);

-- Perfect subtrees of the Merkle tree from level 4 (16 leaves) up: node (level, idx)
-- covers leaves [idx * 2^level, (idx + 1) * 2^level).
CREATE TABLE ledger_merkle_nodes (
    level INTEGER NOT NULL CHECK (level BETWEEN 4 AND 63),
    idx   INTEGER NOT NULL CHECK (idx >= 0),
    hash  BLOB    NOT NULL CHECK (length(hash) = 32),
    PRIMARY KEY (level, idx)
) WITHOUT ROWID;

-- One signed checkpoint per append batch; `frontier` holds the roots of the tree's perfect
-- subtrees, largest first, so the next batch extends the tree without reading it. Each
-- checkpoint names the one it extends, and no two may name the same: the checkpoints form
-- one chain, so two writers extending the same head cannot both commit.
CREATE TABLE ledger_checkpoints (
    size      INTEGER PRIMARY KEY CHECK (size >= 0),
    previous  INTEGER UNIQUE REFERENCES ledger_checkpoints (size),
    root      BLOB    NOT NULL CHECK (length(root) = 32),
    note      TEXT    NOT NULL,
    sealed_at TEXT    NOT NULL,
    frontier  BLOB    NOT NULL,
    CONSTRAINT ledger_checkpoints_chain CHECK ((size = 0) = (previous IS NULL) AND previous < size)
);

CREATE TABLE ledger_keys (
    verifier_key  TEXT PRIMARY KEY,
    registered_at TEXT NOT NULL
);

CREATE TRIGGER ledger_events_no_update BEFORE UPDATE ON ledger_events
    BEGIN SELECT RAISE(ABORT, 'ledger table ledger_events is append-only: UPDATE refused'); END;
CREATE TRIGGER ledger_events_no_delete BEFORE DELETE ON ledger_events
    BEGIN SELECT RAISE(ABORT, 'ledger table ledger_events is append-only: DELETE refused'); END;
CREATE TRIGGER ledger_merkle_nodes_no_update BEFORE UPDATE ON ledger_merkle_nodes
    BEGIN SELECT RAISE(ABORT, 'ledger table ledger_merkle_nodes is append-only: UPDATE refused'); END;
CREATE TRIGGER ledger_merkle_nodes_no_delete BEFORE DELETE ON ledger_merkle_nodes
    BEGIN SELECT RAISE(ABORT, 'ledger table ledger_merkle_nodes is append-only: DELETE refused'); END;
CREATE TRIGGER ledger_checkpoints_no_update BEFORE UPDATE ON ledger_checkpoints
    BEGIN SELECT RAISE(ABORT, 'ledger table ledger_checkpoints is append-only: UPDATE refused'); END;
CREATE TRIGGER ledger_checkpoints_no_delete BEFORE DELETE ON ledger_checkpoints
    BEGIN SELECT RAISE(ABORT, 'ledger table ledger_checkpoints is append-only: DELETE refused'); END;
CREATE TRIGGER ledger_keys_no_update BEFORE UPDATE ON ledger_keys
    BEGIN SELECT RAISE(ABORT, 'ledger table ledger_keys is append-only: UPDATE refused'); END;
CREATE TRIGGER ledger_keys_no_delete BEFORE DELETE ON ledger_keys
    BEGIN SELECT RAISE(ABORT, 'ledger table ledger_keys is append-only: DELETE refused'); END;
