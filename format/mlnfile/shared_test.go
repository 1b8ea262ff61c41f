package mlnfile

import (
	"bytes"
	"github.com/lifted-dev/lifted/internal/shareddata"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/pos"
)

// The shared corpus of real .mln and .db files (see each folder's
// SOURCE.txt). Every file in it must be listed below: as an MLN that
// parses, as evidence or a query that reads against a named MLN, as an
// expected failure with the reason, or as a file that is neither.
var sharedRoot = shareddata.Path("mln")

func sharedDir(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(sharedRoot); err != nil {
		shareddata.Skipf(t, "shared MLN corpus not found at %s (%v); skipping the tests on real files", sharedRoot, err)
	}
	return sharedRoot
}

// mlnCase is one or more .mln files (a glob) and what parsing them gives.
type mlnCase struct {
	glob string
	err  string // "" = must parse cleanly; else a substring of every file's error
	why  string // for expected failures: whose fault and why
}

var sharedMLNs = []mlnCase{
	{glob: "caviar-meet/lomrf-DN-HI/fold_*/meet_trained_func.mln"}, // Alchemy functions: event exit(id), Happens(exit(a5),a2)
	{glob: "cora-class/tuffy-class/prog.mln"},                      // Tuffy "*pred" closed-world declarations
	{glob: "imdb/forclift/*.mln"},
	{glob: "imdb/lsm/imdb.info"}, // LSM: declarations only
	{glob: "lsm-misc/lsm/*.info"},
	{glob: "misc/alchemy2-exdata/[^t]*.mln"},
	{glob: "misc/alchemy2-exdata/testmln[1-7].mln"},
	{glob: "misc/alchemy2-exdata/testmln8.mln", err: `testmln8.mln:24:17: unexpected "|"`,
		why: "file: its last formula uses \"|\" for disjunction, which Alchemy's lexer rejects as well"},
	{glob: "misc/alchemy2-autotest/testmln*.txt", err: `unexpected "#domains"`,
		why: "file: alchemy2's lifted-inference test format (LMParser in src/liftedinfer/tests/parser.cpp: #domains/#predicates/#formulas sections, \"|\" and \"::weight\"), not Alchemy .mln syntax"},
	{glob: "misc/forclift-elie/*.mln"},
	{glob: "misc/forclift-skolemization/skolemization_worksfor1.mln"}, // lowercase "exist"
	{glob: "misc/forclift-skolemization/skolemization_worksfor[23].mln", err: "weighted predicate declarations",
		why: "file: Forclift's weighted predicate declarations \"p(person) 3.67 1.0\" (a WFOMC extension), not Alchemy syntax"},
	{glob: "misc/lomrf-car-traffic/traffic.mln"}, // LoMRF's successor term "t++" (a dynamic MLN)
	{glob: "protein/alchemy2/protein.mln"},       // per-constant "+f1"
	{glob: "protein/lsm-train/function.info"},
	{glob: "rc1000/tuffy-rc1000/prog.mln"},
	{glob: "smokers/*/*.mln"},
	{glob: "univ/alchemy2/univ.mln", err: `univ.mln:27:8: unknown predicate "publication"`,
		why: "file: the last formula uses publication(t,p), which the file never declares; Alchemy rejects it too"},
	{glob: "univ/forclift/*.mln"},  // "*inPhase(...)" atoms, "+ph", EXIST/FORALL, a function declaration, multi-line formulas
	{glob: "univ/lomrf/*.mln"},     // person={1,...,10000}
	{glob: "uwcse/forclift/*.mln"}, // empty types "level= {}"
	{glob: "uwcse/tuffy-cse/prog.mln"},
	{glob: "uwcse/alchemy/*.mln"}, // Alchemy's UW-CSE knowledge base (94 formulas) and its advisedBy subset
	{glob: "misc/fo2-five-unary.mln"},
	{glob: "webkb/*/*.mln"},
}

// dbCase is evidence (a glob) and the MLN it is read against.
type dbCase struct {
	glob  string
	mln   []string // relative to the data root; "{dir}" is the evidence file's directory
	decls string   // declarations written here, where no .mln in the corpus declares the predicates
	// partial: the MLN has expected errors (see sharedMLNs) but its
	// declarations are intact and are used.
	partial bool
	query   bool   // a query file (atoms with variables), read with ReadQuery
	err     string // expected error substring
	nerr    int    // expected number of errors, if err is set
	why     string
}

const webkbFoldDecls = `
HasAssign(page)
HasAustin(page)
HasClass(page)
HasExam(page)
HasGrade(page)
HasHandout(page)
HasHomework(page)
HasHour(page)
HasInstructor(page)
HasLectur(page)
HasLength(page)
HasMime(page)
HasModifi(page)
HasNcsa(page)
HasNote(page)
HasOffic(page)
HasSyllabu(page)
HasThu(page)
HasUnivers(page)
HasVersion(page)
Linked(page, page)
PageClassCourse(page)
PageClassDepartment(page)
PageClassFaculty(page)
PageClassResearchProject(page)
PageClassStaff(page)
PageClassStudent(page)
`

const webkb2Decls = `
courseProf(course, person)
courseTA(course, person)
faculty(person)
project(project, person)
student(person)
`

var sharedDBs = []dbCase{
	{glob: "caviar-meet/lomrf-DN-HI/fold_*/*.db", mln: []string{"{dir}/meet_trained_func.mln"}}, // function values "Running_ID1 = running(ID1)"
	{glob: "cora-class/tuffy-class/evidence.db", mln: []string{"{dir}/prog.mln"}},
	{glob: "cora-class/tuffy-class/query.db", mln: []string{"{dir}/prog.mln"}, query: true},
	{glob: "imdb/forclift/imdb.1.db", mln: []string{"{dir}/formulas.mln"}},
	{glob: "imdb/forclift/imdb.all.db", mln: []string{"{dir}/formulas.mln"}},
	{glob: "imdb/forclift/imdb_fold*.db", mln: []string{"{dir}/formulas.mln"}},
	{glob: "imdb/forclift/imdb.bug1.db", mln: []string{"{dir}/imdb.bug1.mln"}},
	{glob: "imdb/forclift/imdb.bug2.db", mln: []string{"{dir}/imdb.bug2.mln"}},
	{glob: "imdb/forclift/imdb.db", mln: []string{"{dir}/imdb.janvh1.mln"}},
	{glob: "imdb/lsm/*.db", mln: []string{"{dir}/imdb.info"}},
	{glob: "lsm-misc/lsm/ani.db", mln: []string{"{dir}/ani.info"}},
	{glob: "lsm-misc/lsm/kinship.db", mln: []string{"{dir}/kinship.info"}},
	{glob: "lsm-misc/lsm/nations.db", mln: []string{"{dir}/nations.info"}, err: `nations.db:1245:1: predicate "RR" takes 3 arguments but is given 2`, nerr: 32,
		why: "file: the 32 RR atoms on lines 1245-1276 have two arguments, e.g. RR(EExportsBrazil,USA): the relation and the first country are fused (a missing comma); the other 2532 atoms read"},
	{glob: "lsm-misc/lsm/smoking.db", mln: []string{"{dir}/smoking.info"}},
	{glob: "misc/alchemy2-autotest/testdb[1-8].txt", partial: true,
		why: "its MLN (testmlnN.txt) is not Alchemy syntax, but its declarations parse"},
	{glob: "misc/alchemy2-autotest/testdb9xx.txt", mln: []string{"{dir}/testmln9xx.txt"}, partial: true,
		why: "its MLN is not Alchemy syntax, but its declarations parse"},
	{glob: "misc/forclift-elie/data.db", mln: []string{"{dir}/prog.mln"}},
	{glob: "misc/lomrf-car-traffic/*.db", mln: []string{"{dir}/traffic.mln"}},
	{glob: "protein/lsm-t*/*.db", mln: []string{"protein/lsm-train/function.info"}},
	{glob: "rc1000/tuffy-rc1000/evidence.db", mln: []string{"{dir}/prog.mln"}},
	{glob: "rc1000/tuffy-rc1000/query.db", mln: []string{"{dir}/prog.mln"}, query: true},
	{glob: "smokers/alchemy2/evidence.db", mln: []string{"{dir}/model.mln"}},
	{glob: "smokers/forclift/friendsmoker-learn.db", mln: []string{"{dir}/friendsmoker-learn.mln"}},
	{glob: "smokers/forclift/smoking-t*.db", mln: []string{"{dir}/smoking.mln"}},
	{glob: "smokers/lomrf/*.db", mln: []string{"{dir}/smoking.mln"}},
	{glob: "smokers/pracmln/*.db", mln: []string{"{dir}/smoking.mln"}},
	{glob: "smokers/tuffy-smoke/evidence.db", mln: []string{"{dir}/prog.mln"}},
	{glob: "smokers/tuffy-smoke/query.db", mln: []string{"{dir}/prog.mln"}, query: true},
	{glob: "univ/forclift/univ-train.db", mln: []string{"{dir}/univ-train.mln", "{dir}/univ.mln"}},
	{glob: "univ/forclift/univ-test.db", mln: []string{"{dir}/univ-test.mln", "{dir}/univ.mln"}},
	// Query atoms known to be true, in .db syntax.
	{glob: "univ/forclift/univ-test-removed-for-testing.txt", mln: []string{"{dir}/univ-test.mln", "{dir}/univ.mln"}},
	{glob: "univ/lomrf/*.db", mln: []string{"{dir}/TestUniversity.mln"}},
	{glob: "uwcse/forclift/uwcse.0.db", mln: []string{"{dir}/uwcse_bug1.mln"}},
	{glob: "uwcse/forclift/uwcse_fold*.db", mln: []string{"{dir}/convergencetest.mln"}},
	{glob: "uwcse/tuffy-cse/evidence.db", mln: []string{"{dir}/prog.mln"}},
	{glob: "uwcse/tuffy-cse/query.db", mln: []string{"{dir}/prog.mln"}, query: true},
	{glob: "uwcse/alchemy/*.db", mln: []string{"{dir}/uw-cse.mln"}},
	{glob: "webkb/forclift/corn.db", mln: []string{"{dir}/webkb.mln"}},
	{glob: "webkb/forclift/corn20.db", mln: []string{"{dir}/webkb_bug3.mln"}},
	{glob: "webkb/forclift/corn20_bug1.db", mln: []string{"{dir}/webkb_bug1.mln"}},
	{glob: "webkb/forclift/corn20_bug2.db", mln: []string{"{dir}/webkb_bug2.mln"}},
	{glob: "webkb/forclift/webkb-fold*.db", decls: webkbFoldDecls,
		why: "no .mln in the corpus declares HasMime, HasNcsa, … (Forclift's learning runs generate them)"},
	{glob: "webkb/forclift-webkb2/*.db", decls: webkb2Decls,
		why: "no .mln in the corpus declares courseProf, courseTA, …"},
}

// sharedOther lists files that are neither .mln nor .db input.
var sharedOther = []struct{ glob, why string }{
	{"*/SOURCE.txt", "provenance notes"},
	{"*/*/SOURCE.txt", "provenance notes"},
	{"cora-er/expressgnn/S*/*", "ExpressGNN's split format for Cora entity resolution (facts, predicates, queries, rules), not yet read as an MLN"},
	{"lsm-misc/lsm/readme", "prose"},
	{"*/lsm*/*.type", "LSM's list of type names, one per line"},
	{"caviar-meet/lomrf-DN-HI/fold_*/*.golden", "LoMRF's expected inference output (atom and probability per line)"},
	{"caviar-meet/lomrf-DN-HI/fold_*/*.statistics", "LoMRF's statistics (key=value)"},
	{"misc/alchemy2-autotest/groundtruth*.txt", "alchemy2 lifted-inference ground truth (numbers)"},
}

// sharedFiles lists every file of the corpus, relative to root.
func sharedFiles(t *testing.T, root string) []string {
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

func matches(glob, file string) bool {
	ok, err := path.Match(glob, file)
	return err == nil && ok
}

func globAll(t *testing.T, files []string, glob string) []string {
	var out []string
	for _, f := range files {
		if matches(glob, f) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		t.Errorf("pattern %s matches no file", glob)
	}
	return out
}

// TestSharedCorpusCovered checks that every file of the corpus is listed
// exactly once.
func TestSharedCorpusCovered(t *testing.T) {
	root := sharedDir(t)
	for _, f := range sharedFiles(t, root) {
		var in []string
		for _, c := range sharedMLNs {
			if matches(c.glob, f) {
				in = append(in, "mln "+c.glob)
			}
		}
		for _, c := range sharedDBs {
			if matches(c.glob, f) {
				in = append(in, "db "+c.glob)
			}
		}
		for _, c := range sharedOther {
			if matches(c.glob, f) {
				in = append(in, "other "+c.glob)
			}
		}
		if len(in) != 1 {
			t.Errorf("%s is listed %d times (%v); list it exactly once in shared_test.go", f, len(in), in)
		}
	}
}

func TestSharedMLNs(t *testing.T) {
	root := sharedDir(t)
	files := sharedFiles(t, root)
	parsed := 0
	for _, c := range sharedMLNs {
		for _, f := range globAll(t, files, c.glob) {
			m, err := ParseFile(filepath.Join(root, f))
			switch {
			case c.err == "" && err != nil:
				t.Errorf("%s: %v", f, err)
			case c.err != "" && err == nil:
				t.Errorf("%s: parsed, but was expected to fail (%s)", f, c.why)
			case c.err != "" && !strings.Contains(err.Error(), c.err):
				t.Errorf("%s: error %v does not mention %q (%s)", f, err, c.err, c.why)
			case c.err == "":
				parsed++
				checkRoundTrip(t, f, m)
			}
		}
	}
	t.Logf("%d shared .mln files parsed", parsed)
}

// checkRoundTrip prints m, parses the output and compares the trees.
func checkRoundTrip(t *testing.T, name string, m *mln.MLN) {
	t.Helper()
	printed := m.String()
	m2, err := Parse(name+" (printed)", []byte(printed))
	if err != nil {
		t.Errorf("%s: printed MLN does not parse: %v", name, err)
		return
	}
	if d1, d2 := dumpMLN(m), dumpMLN(m2); d1 != d2 {
		t.Errorf("%s: round trip changed the tree\nbefore:\n%s\nafter:\n%s", name, d1, d2)
	}
}

func TestSharedDBs(t *testing.T) {
	root := sharedDir(t)
	files := sharedFiles(t, root)
	mlns := map[string]*mln.MLN{}
	loadMLN := func(c dbCase, dbFile string) *mln.MLN {
		var paths []string
		switch {
		case c.decls != "":
			paths = []string{"decls:" + c.glob}
		case c.mln == nil: // autotest: testdbN.txt pairs with testmlnN.txt
			paths = []string{strings.Replace(dbFile, "testdb", "testmln", 1)}
		default:
			for _, p := range c.mln {
				paths = append(paths, strings.ReplaceAll(p, "{dir}", path.Dir(dbFile)))
			}
		}
		key := strings.Join(paths, ",")
		if m, ok := mlns[key]; ok {
			return m
		}
		var m *mln.MLN
		var err error
		if c.decls != "" {
			m, err = Parse(c.glob+" (declarations in shared_test.go)", []byte(c.decls))
		} else {
			full := make([]string, len(paths))
			for i, p := range paths {
				full[i] = filepath.Join(root, p)
			}
			m, err = ParseFiles(full...)
		}
		if err != nil && !c.partial {
			t.Errorf("%s: MLN %s: %v", dbFile, key, err)
		}
		if len(m.Preds) == 0 {
			t.Errorf("%s: MLN %s declares no predicates", dbFile, key)
		}
		mlns[key] = m
		return m
	}
	read, atoms := 0, 0
	for _, c := range sharedDBs {
		for _, f := range globAll(t, files, c.glob) {
			m := loadMLN(c, f)
			r, err := os.Open(filepath.Join(root, f))
			if err != nil {
				t.Fatal(err)
			}
			if c.query {
				q, err := ReadQuery(r, f, m)
				if err != nil || len(q) == 0 {
					t.Errorf("%s: query: %v (%d atoms)", f, err, len(q))
				}
				r.Close()
				continue
			}
			db, err := ReadDB(r, f, m)
			r.Close()
			switch {
			case c.err == "" && err != nil:
				t.Errorf("%s: %v", f, err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Errorf("%s: got error %v, want one mentioning %q (%s)", f, err, c.err, c.why)
			case c.err != "":
				if el, ok := err.(pos.ErrorList); !ok || len(el) != c.nerr {
					t.Errorf("%s: got %d errors, want %d", f, len(el), c.nerr)
				}
			}
			if len(db.Atoms) == 0 && len(db.Funcs) == 0 {
				t.Errorf("%s: no evidence read", f)
			}
			// Every atom can be found again, and prints back as it reads.
			for _, a := range db.Atoms {
				if tv, ok := db.Lookup(a.Pred, a.Args); !ok || tv != a.Truth {
					t.Fatalf("%s: %s not found by Lookup", f, db.Format(a))
				}
			}
			read++
			atoms += len(db.Atoms)
		}
	}
	t.Logf("%d shared evidence files read, %d atoms", read, atoms)
}

// TestSharedDomains spot-checks a few real databases.
func TestSharedDomains(t *testing.T) {
	root := sharedDir(t)
	m, err := ParseFiles(filepath.Join(root, "univ/forclift/univ-train.mln"), filepath.Join(root, "univ/forclift/univ.mln"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := ReadDBFiles(m, filepath.Join(root, "univ/forclift/univ-train.db"))
	if err != nil {
		t.Fatal(err)
	}
	doms := mln.Domains(m, db)
	if got := len(doms["person"]); got != 15 {
		t.Errorf("univ: %d persons, want the 15 declared", got)
	}
	if got := strings.Join(doms["phase"], ","); got != "Pre_Quals,Post_Quals" {
		t.Errorf("univ phase = %s", got)
	}
	cw, err := mln.ClosedWorld(m, db, []string{"advisedBy"}, nil, nil)
	if err != nil || cw["advisedBy"] || !cw["professor"] {
		t.Errorf("closed world: %v %v", cw, err)
	}

	// CAVIAR: functions, integer constants in an open type.
	dir := filepath.Join(root, "caviar-meet/lomrf-DN-HI/fold_0")
	m, err = ParseFile(filepath.Join(dir, "meet_trained_func.mln"))
	if err != nil {
		t.Fatal(err)
	}
	db, err = ReadDBFiles(m, filepath.Join(dir, "21-Meet_WalkSplit.id1_id3.db"))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(db.Funcs); got != 16 {
		t.Errorf("caviar: %d function values, want 16", got)
	}
	if got := strings.Join(db.Domain("id"), ","); got != "ID1,ID3" {
		t.Errorf("caviar id domain %s", got)
	}
	if got := db.Domain("dist"); len(got) < 2 || got[0] != "25" || got[1] != "34" {
		t.Errorf("caviar dist domain starts %v, want the formulas' 25, 34 first", got)
	}
}

// BenchmarkReadDBCora reads Tuffy's Cora evidence (3.4 MB, 82,684 atoms).
func BenchmarkReadDBCora(b *testing.B) {
	dir := filepath.Join(sharedRoot, "cora-class/tuffy-class")
	src, err := os.ReadFile(filepath.Join(dir, "evidence.db"))
	if err != nil {
		b.Skipf("shared corpus not found: %v", err)
	}
	m, err := ParseFile(filepath.Join(dir, "prog.mln"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := ReadDB(bytes.NewReader(src), "evidence.db", m); err != nil {
			b.Fatal(err)
		}
	}
}
