#!/bin/sh
# Runs every third-party example model checked out under /work/ext (Tuffy,
# pracmln, LoMRF, Alchemy) with the lifted binary BINARY and prints the
# table model source x (models, parsed, run, exact by default).
# Usage: bench/thirdparty/run.sh BINARY [--timeout SECONDS] [--log FILE]
set -e
[ $# -ge 1 ] || { echo "usage: $0 BINARY [--timeout S] [--log FILE]" >&2; exit 2; }
exec python3 "$(dirname "$0")/models.py" "$@"
