package mln_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/mln"
)

func TestNeedsExpansion(t *testing.T) {
	for src, want := range map[string][2]bool{ // NeedsExpansion, HasPerConstantVar
		"person = {A}\nP(person)\n1 P(x)\n":                               {false, false},
		"person = {A}\nP(person)\n1 P(+x)\n":                              {true, true},
		"person = {A}\nP(person)\nQ(person)\n1 *P(x) v Q(x)\n":            {true, false},
		"person = {A}\nP(person)\nQ(person)\n1 Q(x) => (EXIST y *P(y))\n": {true, false},
	} {
		m, err := mlnfile.Parse("n.mln", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if got := [2]bool{mln.NeedsExpansion(m), mln.HasPerConstantVar(m)}; got != want {
			t.Errorf("%q: NeedsExpansion, HasPerConstantVar %v, want %v", src, got, want)
		}
	}
}

// dbReader reads databases from texts by name, counting the calls.
type dbReader struct {
	texts map[string]string
	calls int
}

func (r *dbReader) read(m *mln.MLN, files ...string) (*mln.DB, error) {
	r.calls++
	db := mln.NewDB(m)
	for _, f := range files {
		text, ok := r.texts[f]
		if !ok {
			return nil, errors.New(f + ": no such database")
		}
		if err := mlnfile.ReadDBInto(db, strings.NewReader(text), f); err != nil {
			return nil, err
		}
	}
	return db, nil
}

func (r *dbReader) all(dbs ...[]string) func(*mln.MLN) ([]*mln.DB, error) {
	return func(m *mln.MLN) ([]*mln.DB, error) {
		var out []*mln.DB
		for _, files := range dbs {
			db, err := r.read(m, files...)
			if err != nil {
				return nil, err
			}
			out = append(out, db)
		}
		return out, nil
	}
}

func formulaTexts(m *mln.MLN) []string {
	var out []string
	for _, f := range m.Formulas {
		out = append(out, f.Text)
	}
	return out
}

func TestExpandForData(t *testing.T) {
	m, err := mlnfile.Parse("s.mln", []byte("person = {A, B}\nSmokes(person)\nCancer(person)\n0.5 Smokes(+x) => Cancer(x)\n1 *Smokes(x)\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := &dbReader{texts: map[string]string{"a.db": "Smokes(C)\n", "b.db": "Cancer(D)\nSmokes(A)\n", "c.db": "Smokes(E)\n"}}
	out, dbs, err := mln.ExpandForData(m, r.all([]string{"a.db"}, []string{"b.db", "c.db"}))
	if err != nil {
		t.Fatal(err)
	}
	// The declared constants, then the databases' in order.
	want := []string{"Smokes(A) => Cancer(A)", "Smokes(B) => Cancer(B)", "Smokes(C) => Cancer(C)", "Smokes(D) => Cancer(D)", "Smokes(E) => Cancer(E)", "Smokes(x)", "!Smokes(x)"}
	if got := formulaTexts(out); !reflect.DeepEqual(got, want) {
		t.Errorf("formulas %q, want %q", got, want)
	}
	if r.calls != 4 || len(dbs) != 2 || dbs[0].MLN() != out || dbs[1].MLN() != out {
		t.Fatalf("%d reads, %d databases; want 4 reads and 2 databases of the expanded model", r.calls, len(dbs))
	}
	// Constants the formulas name belong to every database's domain.
	if got := dbs[0].Domain("person"); !reflect.DeepEqual(got, []string{"A", "B", "C", "D", "E"}) {
		t.Errorf("first database's persons %q", got)
	}
	if w := out.Formulas[2].Weight; w != 0.5 {
		t.Errorf("copy weight %v, want 0.5", w)
	}

	// Nothing to expand: m itself, the databases read once.
	plain, err := mlnfile.Parse("p.mln", []byte("person = {A}\nSmokes(person)\n1 Smokes(x)\n"))
	if err != nil {
		t.Fatal(err)
	}
	r.calls = 0
	if out, dbs, err := mln.ExpandForData(plain, r.all([]string{"a.db"})); err != nil || out != plain || len(dbs) != 1 || r.calls != 1 {
		t.Errorf("no expansion: %v, same model %v, %d databases, %d reads", err, out == plain, len(dbs), r.calls)
	}
	if _, _, err := mln.ExpandForData(m, r.all([]string{"x.db"})); err == nil || err.Error() != "x.db: no such database" {
		t.Errorf("read error: %v", err)
	}
}

func TestExpandForHoldout(t *testing.T) {
	m, err := mlnfile.Parse("p.mln", []byte("person = {A, B, C}\nSmokes(person)\nCancer(person)\nSmokes(+x) => Cancer(x)\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := &dbReader{texts: map[string]string{"train.db": "Smokes(A)\nCancer(A)\nSmokes(D)\n", "same.db": "Smokes(D)\n", "other.db": "Smokes(A)\nSmokes(E)\n"}}
	out, err := mln.ExpandForHoldout(m, []string{"train.db"}, []string{"same.db"}, r.read)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Smokes(A) => Cancer(A)", "Smokes(B) => Cancer(B)", "Smokes(C) => Cancer(C)", "Smokes(D) => Cancer(D)"}
	if got := formulaTexts(out); !reflect.DeepEqual(got, want) {
		t.Errorf("formulas %q, want %q", got, want)
	}
	_, err = mln.ExpandForHoldout(m, []string{"train.db"}, []string{"same.db", "other.db"}, r.read)
	if err == nil || err.Error() != `p.mln:4:1: formula "Smokes(+x) => Cancer(x)": per-constant variable +x: other.db has 4 constants of type person, the training data 4, not the same; per-constant weights need the same constants in every database (drop the +, or leave out --holdout)` {
		t.Errorf("other constants: %v", err)
	}

	// Only starred atoms: the databases are not read.
	star, err := mlnfile.Parse("s.mln", []byte("person = {A}\nSmokes(person)\n1 *Smokes(x)\n"))
	if err != nil {
		t.Fatal(err)
	}
	r.calls = 0
	if out, err := mln.ExpandForHoldout(star, []string{"none.db"}, nil, r.read); err != nil || len(out.Formulas) != 2 || r.calls != 0 {
		t.Errorf("starred: %v, %d formulas, %d reads", err, len(out.Formulas), r.calls)
	}
}
