#!/usr/bin/env bash
# Make sure the browser tests have what they drive: Debian's Chromium and its ChromeDriver
# (/usr/bin/chromium, /usr/bin/chromedriver) and a Java runtime for the Nu Html Checker
# (node_modules/vnu-jar). Installs what is missing from Debian's packages, as root, asking
# nothing; never downloads a browser of its own. Exits non-zero when it cannot.
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)
command -v java >/dev/null || missing+=(default-jre-headless)
[ "${#missing[@]}" -eq 0 ] && exit 0
exec "$(dirname "$0")/install-debian.sh" "the browser tests" "${missing[@]}"
