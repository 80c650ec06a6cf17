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
if [ "$(id -u)" -ne 0 ]; then
    echo "the browser tests need ${missing[*]}: run as root, or apt-get install -y ${missing[*]}" >&2
    exit 1
fi
echo "installing ${missing[*]} from Debian's packages for the browser tests" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=600 update -qq </dev/null
apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${missing[@]}" </dev/null
