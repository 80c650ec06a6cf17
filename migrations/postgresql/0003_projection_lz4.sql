-- A read model is written whole at each rebuild (about 175 MB of JSON for 100,000 runs): lz4
-- compresses it in about half the time of PostgreSQL's default pglz and reads it back faster
-- (docs/performance.md). PostgreSQL 14 and later built with lz4, as Debian's is; any other
-- server keeps pglz.
DO $$
BEGIN
    IF current_setting('server_version_num')::int >= 140000 THEN
        EXECUTE 'ALTER TABLE projection_state ALTER COLUMN model SET COMPRESSION lz4';
    END IF;
EXCEPTION WHEN feature_not_supported THEN
    NULL;
END
$$;
