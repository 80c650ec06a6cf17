-- Materialised read models: each projection's model as of the last position it applied.
-- Derived data, rebuilt from the ledger at will, so updated in place.

CREATE TABLE projection_state (
    name     text   PRIMARY KEY,
    position bigint NOT NULL CHECK (position >= 0),
    model    bytea  NOT NULL
);
