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
# out). The reader names are rewritten as calls and as function values
# (mln.ReadDBFiles passed as an argument). A file that then uses mlnfile
# gets the import
#
#	mlnfile "github.com/lifted-dev/lifted/format/mln"
#
# next to its mln import, and loses the mln import if it no longer uses
# mln; gofmt then sorts the imports. Files in mln/ and format/mln/ are left
# alone (they are the packages themselves), except that a test of package
# mln (in mln/, "package mln") that calls the readers unqualified (Parse,
# ReadDB, db.Read, ...) cannot stay in package mln, which format/mln
# imports: it becomes an external test, package mln_test, with mln's
# exported names qualified (an unexported one is then a compile error to
# fix by hand). The script only edits files
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
		s/(?<![\w.])mln\.(ParseFiles|ParseFile|ParseFS|Parse|ReadDBFiles|ReadDB|ReadQuery)\b/mlnfile.$1/g;
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

# Internal tests of package mln that use the readers become package mln_test.
for f in $(ls mln/*_test.go 2>/dev/null); do
	head -1 "$f" | grep -q '^package mln$' || continue
	rc=0
	python3 - "$f" <<'PY' || rc=$?
import glob, re, sys
f = sys.argv[1]
src = open(f).read()
readers = ["ParseFiles", "ParseFile", "ParseFS", "Parse", "ReadDBFiles", "ReadDB", "ReadQuery"]
tok = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|`[^`]*`|\'(?:\\.|[^\'\\\n])*\'', re.S)
def code_only(s):
    return tok.sub(lambda m: " " * len(m.group(0)), s)
code = code_only(src)
uses = re.search(r'(?<![\w.])(' + "|".join(readers) + r')\b', code) or re.search(r'(?<![\w.])\w*(?:db|DB)\w*\.Read\(', code)
if not uses:
    sys.exit(10)
# The exported names of package mln (its non-test files and export_test.go).
names = set()
for g in glob.glob("mln/*.go"):
    if g.endswith("_test.go") and not g.endswith("export_test.go"):
        continue
    t = code_only(open(g).read())
    names.update(re.findall(r'^func ([A-Z]\w*)', t, re.M))
    names.update(re.findall(r'^(?:type|var|const) ([A-Z]\w*)', t, re.M))
    for block in re.findall(r'^(?:const|var|type) \((.*?)^\)', t, re.M | re.S):
        names.update(re.findall(r'^\t([A-Z]\w*)', block, re.M))
# Names the test file declares itself stay as they are.
own = set(re.findall(r'^(?:func|type|var|const) ([A-Z]\w*)', code, re.M))
names -= own
names -= set(readers)
def qualify(s):
    s = re.sub(r'(?<![\w.])(\w*(?:db|DB)\w*)\.Read\(', r'mlnfile.ReadDBInto(\1, ', s)
    s = re.sub(r'(?<![\w.])(' + "|".join(readers) + r')\b', r'mlnfile.\1', s)
    if names:
        alt = "|".join(sorted(names, key=len, reverse=True))
        s = re.sub(r'(?<![\w.])(' + alt + r')\b(?!:)', r'mln.\1', s)
        s = re.sub(r'(?<=\*)(' + alt + r')(?=:)', r'mln.\1', s)
    return s
out, last = [], 0
for m in tok.finditer(src):
    out.append(qualify(src[last:m.start()]))
    out.append(m.group(0))
    last = m.end()
out.append(qualify(src[last:]))
src = "".join(out)
src = re.sub(r'^package mln$', 'package mln_test', src, count=1, flags=re.M)
imports = '\tmlnfile "github.com/lifted-dev/lifted/format/mln"\n'
if re.search(r'(?<![\w.])mln\.', code_only(src)):
    imports += '\t"github.com/lifted-dev/lifted/mln"\n'
m = re.search(r'^import \(\n.*?^\)', src, re.M | re.S)
if m:
    src = src[:m.end() - 1] + '\n' + imports + src[m.end() - 1:]
elif re.search(r'^import "[^"]*"\n', src, re.M):
    src = re.sub(r'^import ("[^"]*")\n', lambda m: 'import (\n\t' + m.group(1) + '\n\n' + imports + ')\n', src, count=1, flags=re.M)
else:
    src = src.replace('package mln_test\n', 'package mln_test\n\nimport (\n' + imports + ')\n', 1)
open(f, "w").write(src)
print("rewrote " + f + " (now package mln_test)")
PY
	case $rc in
	0) gofmt -w "$f"; changed=$((changed + 1)) ;;
	10) ;; # nothing to do
	*) exit 1 ;;
	esac
done
echo "rewrite_importers.sh: $changed files changed"
