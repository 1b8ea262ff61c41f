package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/lift"
)

// convert writes every variable, factor and edge of the model once over its
// shards (the counts of lifted compress), for a factor graph and an MLN,
// and refuses a directory that holds shards already.
func TestConvertEdgeList(t *testing.T) {
	for _, args := range [][]string{
		{smokers, "-e", smokers + ".evid"},
		{"../../examples/mln/smokers.mln", "-e", "../../examples/mln/smokers.db"},
	} {
		out, _, code := run(t, append([]string{"compress", "--construction", "ground", "--quiet"}, args...)...)
		if code != 0 {
			out, _, code = run(t, append([]string{"compress", "--quiet"}, args...)...)
		}
		var st struct{ Variables, Factors, Edges int }
		if err := json.Unmarshal([]byte(out), &st); code != 0 || err != nil {
			t.Fatalf("compress %v: exit %d, %v", args, code, err)
		}
		dir := t.TempDir()
		if _, stderr, code := run(t, append([]string{"convert", "--shards", "3", "-o", dir, "--quiet"}, args...)...); code != 0 {
			t.Fatalf("convert %v: exit %d: %s", args, code, stderr)
		}
		shards, _ := filepath.Glob(filepath.Join(dir, "edges-*.txt"))
		if len(shards) != 3 {
			t.Fatalf("%d shards, want 3", len(shards))
		}
		seenV, seenF := map[int32]bool{}, map[int32]bool{}
		edges := 0
		for _, s := range shards {
			fh, err := os.Open(s)
			if err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(fh)
			for sc.Scan() {
				rec, ok, err := lift.ParseEdgeRecord(sc.Text())
				if err != nil || !ok {
					t.Fatalf("%s: %q: %v", s, sc.Text(), err)
				}
				seen := seenV
				if rec.Factor {
					seen = seenF
				}
				if seen[rec.ID] {
					t.Fatalf("%s: node %v twice", s, rec)
				}
				seen[rec.ID] = true
				edges += len(rec.Vars)
			}
			fh.Close()
		}
		if len(seenV) != st.Variables || len(seenF) != st.Factors || edges != st.Edges {
			t.Fatalf("%v: %d variables, %d factors, %d edges; compress says %+v", args, len(seenV), len(seenF), edges, st)
		}
		if _, stderr, code := run(t, append([]string{"convert", "-o", dir}, args...)...); code != 1 || !strings.Contains(stderr, "already holds") {
			t.Fatalf("convert into a full directory: exit %d, %s", code, stderr)
		}
	}
	if _, stderr, code := run(t, "convert", "--to", "uai", "-o", t.TempDir(), smokers); code != 1 || !strings.Contains(stderr, "unknown --to") {
		t.Fatalf("--to uai: exit %d, %s", code, stderr)
	}
}
