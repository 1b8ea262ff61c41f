#!/usr/bin/env bash
# compare.sh — run the same lifted CLI invocations with two binaries and
# compare their outputs byte for byte.
#
# usage: bench/compat/compare.sh [flags] BASE NEW OUTDIR
#
#   BASE, NEW         two lifted binaries (build them with build.sh)
#   OUTDIR            where the runs go: OUTDIR/new/… and, unless --base-cache,
#                     OUTDIR/base/…
#
# flags:
#   --base-cache DIR  keep BASE's runs in DIR and reuse them on later calls
#                     while DIR/stamp matches BASE's sha256 (a case is rerun
#                     only if its result is missing or its command changed)
#   --filter REGEX    run only the cases whose name matches (grep -E)
#   --timeout S       per-case limit in seconds (default 60)
#   --numtol T        also accept outputs whose numbers agree within T
#                     (|a - b| <= T·max(1, |a|, |b|), all other text equal;
#                     numclose.py): such cases print as near(T) and count
#                     as same — for changes that are equal only up to
#                     rounding, e.g. sequential BP's linear domain (1e-12)
#   --list            print the cases (name and arguments) and exit
#   --root DIR        the repository whose examples/, experiments/, cmd/ and
#                     ../shared the cases read (default: the one holding this
#                     script); keep it fixed between runs that share a cache
#
# The cases are in cases.sh (every subcommand on every shipped example, the
# command's testdata, error cases, and ../shared/data when present). Each
# case runs in a scratch root (OUTDIR/SIDE/root) whose examples/,
# experiments/ and cmd/ are symlinks into this repository and whose ../shared
# is this repository's ../shared, so both binaries see the same relative
# paths and write their -o files to the same relative names.
#
# Compared, per case: the exit status, stdout, every file written under the
# case's output directory, and stderr — after masking only wall-clock
# timings:
#   stdout/files  JSON "seconds", "color_seconds", "ground_seconds" values
#                 (count's per_step and learn --log curve points included);
#                 count's text "time X s"; wfomc's text "seconds = X"
#   stderr        the rate-limited progress lines (\r\e[K[  1.2s] …, shown
#                 only for runs longer than a second, or "lifted: [1.0 s] …"
#                 lines when stderr is not a terminal), the "…, 0.123 s"
#                 of learn's summary lines and the "…; 0.0655 s" of infer's
# Masked copies are in OUTDIR/SIDE/masked/NAME; "diff -r" them to see a
# difference.
#
# Output: one line per case, "same", "both-fail-same" (same non-zero exit
# status and the same stderr/stdout) or "DIFF(what)" / "TIMEOUT", then a
# summary line "N same, M differ". Exit status 1 if any case differs.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)

base_cache=
filter=
timeout_s=60
numtol=
list=
while [ $# -gt 0 ]; do
	case $1 in
	--base-cache) base_cache=$2; shift 2 ;;
	--filter) filter=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--numtol) numtol=$2; shift 2 ;;
	--list) list=1; shift ;;
	--root) repo=$(cd "$2" && pwd); shift 2 ;;
	-h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	--) shift; break ;;
	-*) echo "compare.sh: unknown flag $1" >&2; exit 2 ;;
	*) break ;;
	esac
done

HAVE_SHARED=
[ -d "$repo/../shared/data" ] && HAVE_SHARED=1

# Collect the cases.
names=()
cmds=()
declare -A seen
c() {
	local n=$1
	shift
	if [ -n "${seen[$n]:-}" ]; then
		echo "compare.sh: duplicate case name $n" >&2
		exit 2
	fi
	seen[$n]=1
	if [ -n "$filter" ] && ! grep -Eq -- "$filter" <<<"$n"; then
		return
	fi
	names+=("$n")
	cmds+=("$(printf '%q ' "$@")")
}
# shellcheck source=cases.sh
source "$here/cases.sh"

if [ -n "$list" ]; then
	for i in "${!names[@]}"; do
		printf '%s\t%s\n' "${names[$i]}" "${cmds[$i]}"
	done
	exit 0
fi

if [ $# -ne 3 ]; then
	echo "usage: $0 [--base-cache DIR] [--filter REGEX] [--timeout S] [--list] BASE NEW OUTDIR" >&2
	exit 2
fi
abspath() { (cd "$(dirname "$1")" && echo "$(pwd)/$(basename "$1")"); }
base_bin=$(abspath "$1")
new_bin=$(abspath "$2")
out=$3
for b in "$base_bin" "$new_bin"; do
	[ -x "$b" ] || { echo "compare.sh: $b is not an executable" >&2; exit 2; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
base_dir=$out/base
if [ -n "$base_cache" ]; then
	mkdir -p "$base_cache"
	base_dir=$(cd "$base_cache" && pwd)
fi
new_dir=$out/new

# setup DIR BIN: a scratch root for one side; with a stamp that differs
# from BIN's checksum (or none) the old results are dropped.
setup() {
	local d=$1 bin=$2 sum
	sum=$(sha256sum <"$bin" | cut -d' ' -f1)
	if [ "$(cat "$d/stamp" 2>/dev/null)" != "$sum" ]; then
		rm -rf "$d/root" "$d/raw" "$d/masked"
		mkdir -p "$d"
		echo "$sum" >"$d/stamp"
	fi
	mkdir -p "$d/root/o" "$d/raw" "$d/masked"
	local x
	for x in examples experiments cmd; do
		ln -sfn "$repo/$x" "$d/root/$x"
	done
	if [ -n "$HAVE_SHARED" ]; then
		ln -sfn "$(cd "$repo/../shared" && pwd)" "$d/shared"
	fi
}
setup "$base_dir" "$base_bin"
rm -rf "$new_dir"
setup "$new_dir" "$new_bin"

mask_out() {
	perl -pe '
		s/("(?:seconds|color_seconds|ground_seconds)"\s*:\s*)-?[0-9][0-9.eE+-]*/$1"<T>"/g;
		s/^((?:method .*, )?time )[0-9][0-9.eE+-]* s$/$1<T> s/;
		s/^seconds = [0-9][0-9.eE+-]*$/seconds = <T>/;
	'
}
mask_err() {
	perl -0pe '
		s/(?:\r\e\[K\[ *[0-9.]+s\][^\r\n]*)+\n?//g;
		s/^lifted: \[ *[0-9.]+ s\] [^\n]*\n//mg;
		s/, [0-9]+\.[0-9]{3} s(?= \(|$)/, <T> s/mg;
		s/; [0-9]+(?:\.[0-9]+)?(?:e[-+]?[0-9]+)? s$/; <T> s/mg;
	'
}

# run DIR BIN NAME CMD: run one case and write its masked results.
run() {
	local d=$1 bin=$2 n=$3 cmd=$4
	local raw=$d/raw/$n m=$d/masked/$n o=$d/root/o/$n
	rm -rf "$raw" "$m" "$o"
	mkdir -p "$raw" "$m/files" "$o"
	local -a args
	eval "args=($cmd)"
	args=("${args[@]//@O/o/$n}")
	local t0 t1 rc
	t0=$(date +%s.%N)
	(cd "$d/root" && timeout "$timeout_s" "$bin" "${args[@]}" </dev/null >"$raw/stdout" 2>"$raw/stderr")
	rc=$?
	t1=$(date +%s.%N)
	echo "$rc" >"$raw/rc"
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", b - a }' >"$raw/seconds"
	mask_out <"$raw/stdout" >"$m/stdout"
	mask_err <"$raw/stderr" >"$m/stderr"
	(cd "$o" && find . -type f | sort) | while read -r f; do
		mkdir -p "$(dirname "$m/files/$f")"
		if grep -Iq . "$o/$f" || [ ! -s "$o/$f" ]; then
			mask_out <"$o/$f" >"$m/files/$f"
		else
			cp "$o/$f" "$m/files/$f"
		fi
	done
	echo "$rc" >"$m/rc" # last: marks the case done
}

nsame=0
ndiff=0
nfail=0
start=$(date +%s)
for i in "${!names[@]}"; do
	n=${names[$i]}
	cmd=${cmds[$i]}
	if [ -z "$base_cache" ] || [ ! -f "$base_dir/masked/$n/rc" ] || [ "$(cat "$base_dir/raw/$n/cmd" 2>/dev/null)" != "$cmd" ]; then
		run "$base_dir" "$base_bin" "$n" "$cmd"
		echo "$cmd" >"$base_dir/raw/$n/cmd"
	fi
	run "$new_dir" "$new_bin" "$n" "$cmd"
	echo "$cmd" >"$new_dir/raw/$n/cmd"
	rb=$(cat "$base_dir/masked/$n/rc")
	rn=$(cat "$new_dir/masked/$n/rc")
	what=()
	[ "$rb" = "$rn" ] || what+=("rc $rb/$rn")
	near=
	for p in stdout stderr; do
		if ! cmp -s "$base_dir/masked/$n/$p" "$new_dir/masked/$n/$p"; then
			if [ -n "$numtol" ] && python3 "$here/numclose.py" "$numtol" "$base_dir/masked/$n/$p" "$new_dir/masked/$n/$p"; then
				near=1
			else
				what+=("$p")
			fi
		fi
	done
	if ! diff -rq "$base_dir/masked/$n/files" "$new_dir/masked/$n/files" >/dev/null; then
		fb=$(cd "$base_dir/masked/$n/files" && find . -type f | sort)
		fn=$(cd "$new_dir/masked/$n/files" && find . -type f | sort)
		ok=
		if [ -n "$numtol" ] && [ "$fb" = "$fn" ]; then
			ok=1
			for f in $fb; do
				python3 "$here/numclose.py" "$numtol" "$base_dir/masked/$n/files/$f" "$new_dir/masked/$n/files/$f" || ok=
			done
		fi
		if [ -n "$ok" ]; then near=1; else what+=("files"); fi
	fi
	if [ "$rb" = 124 ] || [ "$rn" = 124 ]; then
		status=TIMEOUT
		ndiff=$((ndiff + 1))
	elif [ ${#what[@]} -gt 0 ]; then
		status="DIFF($(
			IFS=,
			echo "${what[*]}"
		))"
		ndiff=$((ndiff + 1))
	elif [ "$rb" != 0 ]; then
		status=both-fail-same
		nsame=$((nsame + 1))
		nfail=$((nfail + 1))
	elif [ -n "$near" ]; then
		status="near($numtol)"
		nsame=$((nsame + 1))
	else
		status=same
		nsame=$((nsame + 1))
	fi
	printf '%-16s %-44s rc %s base %6ss new %6ss\n' "$status" "$n" "$rb" \
		"$(cat "$base_dir/raw/$n/seconds")" "$(cat "$new_dir/raw/$n/seconds")"
	case $status in
	DIFF* | TIMEOUT) echo "    diff -r $base_dir/masked/$n $new_dir/masked/$n" ;;
	esac
done | tee "$out/results.txt"

nsame=$(grep -c -E '^(same|both-fail-same|near\([^)]*\)) ' "$out/results.txt")
ndiff=$(grep -c -E '^(DIFF|TIMEOUT)' "$out/results.txt")
nfail=$(grep -c '^both-fail-same ' "$out/results.txt")
echo "$((nsame + ndiff)) cases in $(($(date +%s) - start)) s; $nfail of the same fail alike (error cases); masked outputs in $base_dir/masked and $new_dir/masked" | tee -a "$out/results.txt"
[ -n "$HAVE_SHARED" ] || echo "(../shared/data absent: its cases were skipped)" | tee -a "$out/results.txt"
echo "$nsame same, $ndiff differ" | tee -a "$out/results.txt"
[ "$ndiff" -eq 0 ]
