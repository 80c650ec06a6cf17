#!/bin/sh
# The Argusic baseline agent: a scripted agent that follows the standard instructions
# (/argusic/instructions.md) on the project in its working directory. It reads the project's
# README for its install, start and verify commands (lines "Install: `cmd`", "Start: `cmd`",
# "Verify: `cmd`"), runs them, and writes its report to /argusic/report.json.
set -u
cd /argusic/project || exit 2
echo "Argusic baseline agent 1 - run ${ARGUSIC_RUN_ID:-?}, budget ${ARGUSIC_BUDGET_SECONDS:-?} s"
echo "--- instructions"
sed -n '3,4p' /argusic/instructions.md

step() { sed -n "s/^$1: *\`\(.*\)\`\$/\1/p" README.md 2>/dev/null | head -n 1; }
json() { printf '%s' "$1" | tr -d '\000-\037' | sed 's/\\/\\\\/g; s/"/\\"/g'; }

ask_model() {
    # One call to the agent's model with its own key; without a network it just fails.
    [ -n "${ARGUSIC_MODEL_BASE_URL:-}" ] || return 0
    wget -q -T 5 -O /tmp/model.json \
        --header "Authorization: Bearer ${OPENROUTER_API_KEY:-}" \
        --header "Content-Type: application/json" \
        --post-data '{"model":"baseline","messages":[{"role":"user","content":"next step?"}]}' \
        "$ARGUSIC_MODEL_BASE_URL/chat/completions" 2>/dev/null \
        && echo "model: answered" || echo "model: unreachable"
}

installed=false started=false found=0 fixed=0 depth=tier3_none how="not verified"
ask_model
install=$(step Install) start=$(step Start) verify=$(step Verify)
echo "--- install: ${install:-none}"
if [ -n "$install" ] && sh -c "$install"; then
    installed=true
else
    found=$((found + 1))
    final="install failed: \`$install\` exited non-zero"
fi
if $installed; then
    echo "--- start: ${start:-none}"
    if [ -n "$start" ] && sh -c "$start"; then
        started=true
    else
        found=$((found + 1))
        final="start failed: \`$start\` exited non-zero"
    fi
fi
if $started; then
    echo "--- verify: ${verify:-none}"
    if [ -n "$verify" ] && out=$(sh -c "$verify" 2>&1); then
        depth=tier1_real
        how="$verify -> exit 0, $(printf '%s' "$out" | head -n 1)"
        final="installed, started and verified: $(printf '%s' "$out" | head -n 1)"
    else
        final="installed and started; \`$verify\` did not confirm it works"
    fi
fi
printf '{"installed": %s, "started": %s, "errors_found": %d, "errors_fixed": %d, "test_depth": "%s", "verified_how": "%s", "final_state": "%s"}\n' \
    "$installed" "$started" "$found" "$fixed" "$depth" "$(json "$how")" "$(json "$final")" \
    > /argusic/report.json
echo "--- report"
cat /argusic/report.json
