#!/usr/bin/env bash
# Make sure a Docker engine answers on the default socket; install and start one when none does;
# and that Debian's busybox-static, xvfb and x11-utils, which the sandbox images are built from,
# are there.
# Idempotent, for root, reads no standard input. The engine runs without a bridge or iptables
# rules: sandboxes use network "none" here (config/orchestrator.toml), and nothing is pulled
# from a registry (the images are built locally by `argusic sandbox image`).
set -euo pipefail
LOG=${ARGUSIC_DOCKERD_LOG:-/var/log/argusic-dockerd.log}
ready() { docker info >/dev/null 2>&1; }
IMAGE_PACKAGES=(busybox-static xvfb x11-utils)
if ! dpkg -s "${IMAGE_PACKAGES[@]}" >/dev/null 2>&1; then
    echo "Installing Debian's ${IMAGE_PACKAGES[*]} (the sandbox images are built from them)" >&2
    install() {
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
            "${IMAGE_PACKAGES[@]}" </dev/null >/dev/null
    }
    install || { apt-get update -q </dev/null >/dev/null && install; }
fi
ready && exit 0
if ! command -v dockerd >/dev/null || ! command -v docker >/dev/null; then
    echo "No Docker engine here: installing Debian's docker.io" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q docker.io </dev/null >/dev/null \
        || { apt-get update -q </dev/null >/dev/null && apt-get install -y -q docker.io </dev/null >/dev/null; }
fi
if ! pgrep -x dockerd >/dev/null; then
    echo "Docker is not answering: starting dockerd (log: $LOG)" >&2
    mkdir -p "$(dirname "$LOG")"
    nohup dockerd --bridge=none --iptables=false --ip-masq=false </dev/null >>"$LOG" 2>&1 &
fi
for _ in $(seq 1 120); do ready && exit 0; sleep 0.5; done
echo "Docker did not come up within 60 s; see $LOG" >&2
exit 1
