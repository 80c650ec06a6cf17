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
exec "$(dirname "$0")/install-debian.sh" "argusic render" "${missing[@]}"
