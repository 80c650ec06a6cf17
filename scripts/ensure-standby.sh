#!/usr/bin/env bash
# Make sure a PostgreSQL primary and its hot standby answer on loopback for the replication
# tests: a cluster of our own (initdb, its own ports), since the machine's cluster allows no
# replication in its pg_hba.conf, and a standby made from it by `pg_basebackup -R`.
#   primary  postgresql://postgres@127.0.0.1:55432/test  (ARGUSIC_TEST_PRIMARY_URL)
#   standby  postgresql://postgres@127.0.0.1:55433/test  (ARGUSIC_TEST_STANDBY_URL)
# Idempotent, for root (the servers run as the postgres user) or the user owning the folder,
# reads no standard input. Both clusters live under $ARGUSIC_STANDBY_DIR
# (default /var/tmp/argusic-replication), trust authentication, listening on 127.0.0.1 only.
set -euo pipefail
DIR=${ARGUSIC_STANDBY_DIR:-/var/tmp/argusic-replication}
PRIMARY_PORT=${ARGUSIC_PRIMARY_PORT:-55432}
STANDBY_PORT=${ARGUSIC_STANDBY_PORT:-55433}
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$PGBIN/initdb" ] || { echo "PostgreSQL's initdb not found under /usr/lib/postgresql" >&2; exit 1; }
if [ "$(id -u)" = 0 ]; then as_owner() { runuser -u postgres -- "$@"; }; else as_owner() { "$@"; }; fi
ready() { pg_isready -q -h 127.0.0.1 -p "$1"; }
query() { psql -X -q -t -A -h 127.0.0.1 -p "$1" -U postgres -d postgres -c "$2" </dev/null; }
streaming() {
    [ "$(query "$STANDBY_PORT" 'SELECT status FROM pg_stat_wal_receiver' 2>/dev/null)" = streaming ]
}
start() { as_owner "$PGBIN/pg_ctl" -D "$DIR/$1" -l "$DIR/$1.log" -w -t 60 start >/dev/null; }
stop() { as_owner "$PGBIN/pg_ctl" -D "$DIR/$1" -m fast -w stop >/dev/null 2>&1 || true; }
settled() { for _ in $(seq 1 60); do streaming && return 0; sleep 0.5; done; return 1; }

ready "$PRIMARY_PORT" && ready "$STANDBY_PORT" && streaming && exit 0

mkdir -p "$DIR"
[ "$(id -u)" = 0 ] && chown postgres: "$DIR" && chmod 0700 "$DIR"
make_primary() {
    echo "Making the replication tests' primary in $DIR/primary (port $PRIMARY_PORT)" >&2
    stop standby
    rm -rf "$DIR/primary" "$DIR/standby"
    as_owner "$PGBIN/initdb" -D "$DIR/primary" -U postgres --auth=trust -E UTF8 >/dev/null
    as_owner tee -a "$DIR/primary/postgresql.conf" >/dev/null <<CONF
listen_addresses = '127.0.0.1'
port = $PRIMARY_PORT
unix_socket_directories = '$DIR'
wal_level = replica
max_wal_senders = 8
wal_keep_size = '256MB'
hot_standby = on
shared_buffers = '32MB'
fsync = off
CONF
    as_owner tee "$DIR/primary/pg_hba.conf" >/dev/null <<CONF
local all all trust
host all all 127.0.0.1/32 trust
host replication all 127.0.0.1/32 trust
CONF
}
[ -s "$DIR/primary/PG_VERSION" ] || make_primary
# test data only: a primary that cannot start (fsync is off: after a crash) is made again
ready "$PRIMARY_PORT" || start primary || { make_primary && start primary; }
[ "$(query "$PRIMARY_PORT" "SELECT 1 FROM pg_database WHERE datname = 'test'")" = 1 ] \
    || query "$PRIMARY_PORT" "CREATE DATABASE test" >/dev/null

make_standby() {
    echo "Making the hot standby in $DIR/standby (port $STANDBY_PORT) by pg_basebackup -R" >&2
    stop standby
    rm -rf "$DIR/standby"
    as_owner "$PGBIN/pg_basebackup" -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres \
        -D "$DIR/standby" -R -X stream -c fast
    echo "port = $STANDBY_PORT" | as_owner tee -a "$DIR/standby/postgresql.conf" >/dev/null
}
[ -s "$DIR/standby/PG_VERSION" ] || make_standby
ready "$STANDBY_PORT" || start standby || { make_standby && start standby; }
settled && exit 0
# a standby the primary cannot feed (made from an earlier primary) is made again
make_standby && start standby && settled && exit 0
echo "The hot standby on 127.0.0.1:$STANDBY_PORT does not stream; see $DIR/standby.log" >&2
exit 1
