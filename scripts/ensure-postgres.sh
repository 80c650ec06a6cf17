#!/usr/bin/env bash
# Make sure the PostgreSQL server the tests use answers on 127.0.0.1:5432; start the local
# cluster when it does not. Exits non-zero when no server can be had.
set -euo pipefail
ready() { pg_isready -q -h 127.0.0.1 -p 5432; }
command -v pg_isready >/dev/null || { echo "pg_isready not found: install PostgreSQL" >&2; exit 1; }
ready && exit 0
echo "PostgreSQL is not answering on 127.0.0.1:5432: starting the local cluster" >&2
pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start
for _ in $(seq 1 60); do ready && exit 0; sleep 0.5; done
echo "PostgreSQL did not come up on 127.0.0.1:5432" >&2
exit 1
