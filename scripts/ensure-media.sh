#!/usr/bin/env bash
# Make sure `argusic render` has what it encodes with (methodology section 17, the presentation
# layer): Debian's ffmpeg, and the monospaced font its frames are drawn in (fonts-dejavu-core).
# Installs what is missing from Debian's packages, as root, asking nothing; nothing is ever
# downloaded at render time. Exits non-zero when it cannot.
set -euo pipefail
missing=()
command -v ffmpeg >/dev/null || missing+=(ffmpeg)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf ] || missing+=(fonts-dejavu-core)
[ "${#missing[@]}" -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
    echo "argusic render needs ${missing[*]}: run as root, or apt-get install -y ${missing[*]}" >&2
    exit 1
fi
echo "installing ${missing[*]} from Debian's packages for argusic render" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=600 update -qq </dev/null
apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" </dev/null
