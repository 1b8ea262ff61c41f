#!/bin/sh
# Runs every third-party example model checked out under /work/ext (Tuffy,
# pracmln, LoMRF, Alchemy; a source whose checkout is absent is skipped
# with a message) with the lifted binary BINARY (and BINARY2…, each model
# with every binary in turn) and prints the table model source x (models,
# parsed, run, exact by default). See models.py for the definitions.
# Usage: bench/thirdparty/run.sh BINARY [BINARY2 ...] [--timeout SECONDS] [--log FILE]
set -e
[ $# -ge 1 ] || { echo "usage: $0 BINARY [BINARY2 ...] [--timeout S] [--log FILE]" >&2; exit 2; }
exec python3 "$(dirname "$0")/models.py" "$@"
