#!/usr/bin/env bash
# install-debian.sh WHAT PACKAGE...: install Debian's PACKAGEs for WHAT, as root, asking nothing
# (the ensure-* scripts and make bench call it with what they found missing). Exits non-zero
# when it cannot.
set -euo pipefail
what=$1
shift
if [ "$(id -u)" -ne 0 ]; then
    echo "$what needs $*: run as root, or apt-get install -y $*" >&2
    exit 1
fi
echo "installing $* from Debian's packages for $what" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=600 update -qq </dev/null
apt-get -o DPkg::Lock::Timeout=600 install -y -qq "$@" </dev/null
