-- Materialised read models: each projection's model as of the last position it applied.
-- Derived data, rebuilt from the ledger at will, so updated in place.

CREATE TABLE projection_state (
    name     TEXT    PRIMARY KEY,
    position INTEGER NOT NULL CHECK (position >= 0),
    model    BLOB    NOT NULL
);
