#!/usr/bin/env bash
# build-device.sh — builds the static binaries that device.sh runs, into
# experiments/colourpassing/bin/ (git-ignored; carried to the device machine):
#
#   bin/scaling         the scaling program (scaling/) on this tree
#   bin/scaling-before  the same program on BEFORE-REF (default 0c80ede, main
#                       before this branch: colour passing with only its
#                       signing in parallel), for the before/after ratios of
#                       issue 26
#
# usage: experiments/colourpassing/build-device.sh [BEFORE-REF]
set -euo pipefail
before=${1:-0c80ede2ed11c472550dc5d52be9802064b2a200}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mkdir -p "$here/bin"
(cd "$root" && CGO_ENABLED=0 go build -trimpath -o "$here/bin/scaling" ./experiments/colourpassing/scaling)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$root" archive "$before" | tar -x -C "$tmp"
mkdir -p "$tmp/experiments/colourpassing/scaling"
cp "$here/scaling/main.go" "$tmp/experiments/colourpassing/scaling/main.go"
(cd "$tmp" && CGO_ENABLED=0 go build -trimpath -o "$here/bin/scaling-before" ./experiments/colourpassing/scaling)
git -C "$root" rev-parse HEAD > "$here/bin/commit"
git -C "$root" rev-parse "$before" > "$here/bin/commit-before"
ls -l "$here/bin"
