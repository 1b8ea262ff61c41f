#!/usr/bin/env bash
# build.sh REF|DIR OUT — build the lifted command of a git ref (exported with
# git archive into a temporary directory, so no worktree is touched) or of a
# source tree DIR, and write the binary to OUT.
#
#   bench/compat/build.sh 3ee562b /tmp/base/lifted   # the baseline
#   bench/compat/build.sh . /tmp/new/lifted          # the current tree
#
# The package is ./cmd/lifted; set PKG to build another path (if the refactor
# moves the command).
set -euo pipefail

if [ $# -ne 2 ]; then
	echo "usage: $0 REF|DIR OUT" >&2
	exit 2
fi
src=$1
out=$2
pkg=${PKG:-./cmd/lifted}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)
mkdir -p "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")

if [ -d "$src" ]; then
	(cd "$src" && go build -o "$out" "$pkg")
else
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	git -C "$repo" archive --format=tar "$src" | tar -x -C "$tmp"
	(cd "$tmp" && go build -o "$out" "$pkg")
fi
echo "built $out from $src" >&2
