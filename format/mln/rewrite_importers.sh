#!/bin/sh
# rewrite_importers.sh TREE
#
# Moves the callers in the Go tree TREE (a checkout of
# github.com/lifted-dev/lifted) from the readers that used to be in package
# mln to package format/mln (package name mlnfile):
#
#	mln.Parse, ParseFile, ParseFiles, ParseFS  -> mlnfile.Parse, ...
#	mln.ReadDB, ReadDBFiles, ReadQuery         -> mlnfile.ReadDB, ...
#	X.Read(r, name) on an *mln.DB X            -> mlnfile.ReadDBInto(X, r, name)
#
# (the last only where X's name contains "db" or "DB", which is how every
# caller names its databases; any other is left to the compiler to point
# out). A file that then uses mlnfile gets the import
#
#	mlnfile "github.com/lifted-dev/lifted/format/mln"
#
# next to its mln import, and loses the mln import if it no longer uses
# mln; gofmt then sorts the imports. Files in mln/ and format/mln/ are left
# alone (they are the packages themselves). The script only edits files
# that mention one of the names above and is idempotent: a second run
# changes nothing, so it can be run again after merging branches written
# against the old API. Check the result with go build ./... && go vet ./...
set -eu

tree=${1:?usage: rewrite_importers.sh TREE}
cd "$tree"
[ -f go.mod ] && grep -q '^module github.com/lifted-dev/lifted$' go.mod ||
	{ echo "rewrite_importers.sh: $tree is not the lifted module" >&2; exit 1; }

mlnimp='"github.com/lifted-dev/lifted/mln"'
NEWIMP='mlnfile "github.com/lifted-dev/lifted/format/mln"'
export NEWIMP

# Files that import mln, outside the two packages.
files=$(grep -rl --include='*.go' -F "$mlnimp" . | grep -v -e '^\./mln/' -e '^\./format/mln/' -e '^\./\.git/' | sort || true)

changed=0
for f in $files; do
	before=$(cksum <"$f")
	perl -pi -e '
		s/(?<![\w.])mln\.(ParseFiles|ParseFile|ParseFS|Parse|ReadDBFiles|ReadDB|ReadQuery)\(/mlnfile.$1(/g;
		s/(?<![\w.])(\w*(?:db|DB)\w*)\.Read\(/mlnfile.ReadDBInto($1, /g;
	' "$f"
	# Uses in code, not only in comments.
	uses() { grep -v -E '^[[:space:]]*//' "$f" | grep -q -E "(^|[^[:alnum:]_.])$1\\."; }
	if uses mlnfile && ! grep -q -F "$NEWIMP" "$f"; then
		if grep -q -E "^import $mlnimp\$" "$f"; then
			perl -pi -e 's{^import "github.com/lifted-dev/lifted/mln"$}{import (\n\t"github.com/lifted-dev/lifted/mln"\n\tmlnfile "github.com/lifted-dev/lifted/format/mln"\n)}' "$f"
		else
			perl -pi -e 's{^(\t"github.com/lifted-dev/lifted/mln")$}{\t$ENV{NEWIMP}\n$1}' "$f"
		fi
	fi
	if ! uses mln; then
		perl -ni -e 'print unless m{^\t"github.com/lifted-dev/lifted/mln"$}' "$f"
		perl -0pi -e 's{\nimport "github.com/lifted-dev/lifted/mln"\n}{\n}' "$f"
	fi
	if [ "$(cksum <"$f")" != "$before" ]; then
		gofmt -w "$f"
		echo "rewrote $f"
		changed=$((changed + 1))
	fi
done
echo "rewrite_importers.sh: $changed files changed"
