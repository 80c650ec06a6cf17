-- The append-only evidence ledger: events, the Merkle nodes proofs read, signed checkpoints.

CREATE TABLE ledger_events (
    position  bigint PRIMARY KEY CHECK (position > 0),
    stream    text   NOT NULL,
    version   bigint NOT NULL CHECK (version >= 0),
    type      text   NOT NULL,
    canonical bytea  NOT NULL,
    hash      bytea  NOT NULL CHECK (length(hash) = 32),
    CONSTRAINT ledger_events_stream_version UNIQUE (stream, version)
);

-- Perfect subtrees of the Merkle tree from level 4 (16 leaves) up: node (level, idx)
-- covers leaves [idx * 2^level, (idx + 1) * 2^level).
CREATE TABLE ledger_merkle_nodes (
    level smallint NOT NULL CHECK (level BETWEEN 4 AND 63),
    idx   bigint   NOT NULL CHECK (idx >= 0),
    hash  bytea    NOT NULL CHECK (length(hash) = 32),
    PRIMARY KEY (level, idx)
);

-- One signed checkpoint per append batch; `frontier` holds the roots of the tree's perfect
-- subtrees, largest first, so the next batch extends the tree without reading it. Each
-- checkpoint names the one it extends, and no two may name the same: the checkpoints form
-- one chain, so two writers extending the same head cannot both commit.
CREATE TABLE ledger_checkpoints (
    size      bigint PRIMARY KEY CHECK (size >= 0),
    previous  bigint UNIQUE REFERENCES ledger_checkpoints (size),
    root      bytea  NOT NULL CHECK (length(root) = 32),
    note      text   NOT NULL,
    sealed_at text   NOT NULL,
    frontier  bytea  NOT NULL,
    CONSTRAINT ledger_checkpoints_chain CHECK ((size = 0) = (previous IS NULL) AND previous < size)
);

CREATE TABLE ledger_keys (
    verifier_key  text PRIMARY KEY,
    registered_at text NOT NULL
);

CREATE FUNCTION ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ledger table % is append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$;

CREATE TRIGGER ledger_events_append_only BEFORE UPDATE OR DELETE ON ledger_events
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_events_no_truncate BEFORE TRUNCATE ON ledger_events
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_merkle_nodes_append_only BEFORE UPDATE OR DELETE ON ledger_merkle_nodes
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_merkle_nodes_no_truncate BEFORE TRUNCATE ON ledger_merkle_nodes
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_checkpoints_append_only BEFORE UPDATE OR DELETE ON ledger_checkpoints
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_checkpoints_no_truncate BEFORE TRUNCATE ON ledger_checkpoints
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_keys_append_only BEFORE UPDATE OR DELETE ON ledger_keys
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_keys_no_truncate BEFORE TRUNCATE ON ledger_keys
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change();
