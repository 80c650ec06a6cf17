#!/usr/bin/env bash
# Methodology section 7: fail when the model key's spending-limit line of the methodology text and the
# orchestrator's configuration in force (ARGUSIC_ORCHESTRATOR_CONFIG) disagree (ISSUE-072); `[keys]
# gpu_limit_usd` (section 6a) is compared with the text's GPU line, or with the per-run line while
# the text has none.
set -euo pipefail
if [ -n "${ARGUSIC_ORCHESTRATOR_CONFIG:-}" ]; then
    ARGUSIC_ORCHESTRATOR_CONFIG=$(realpath -m "$ARGUSIC_ORCHESTRATOR_CONFIG"); export ARGUSIC_ORCHESTRATOR_CONFIG
fi
cd "$(dirname "$0")/.."
PY=.venv/bin/python; [ -x "$PY" ] || PY=python3
exec "$PY" -m scripts.check_methodology cost
