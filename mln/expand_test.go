package mln_test

import (
	"reflect"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/mln"
)

func TestExpand(t *testing.T) {
	src := `person = {Anna, Bob}
color = {Red, Green, Blue}
Smokes(person)
Cancer(person)
Likes(person, color)
1.5 Smokes(+x) => Cancer(x)
Friends(person, person)
0.5 Friends(x, y) ^ Smokes(x) =>
   Smokes(y)
Likes(+x, +c) ^ EXIST y Friends(x, y).
Smokes(+p) ^ (p = Anna)
`
	m, out, origin := parseExpand(t, src)
	var texts []string
	for _, f := range out.Formulas {
		texts = append(texts, f.Text)
	}
	want := []string{
		"Smokes(Anna) => Cancer(Anna)", "Smokes(Bob) => Cancer(Bob)",
		"Friends(x, y) ^ Smokes(x) =>\n   Smokes(y)", // unchanged, as written
		"Likes(Anna,Red) ^ (EXIST y Friends(Anna,y))", "Likes(Anna,Green) ^ (EXIST y Friends(Anna,y))", "Likes(Anna,Blue) ^ (EXIST y Friends(Anna,y))",
		"Likes(Bob,Red) ^ (EXIST y Friends(Bob,y))", "Likes(Bob,Green) ^ (EXIST y Friends(Bob,y))", "Likes(Bob,Blue) ^ (EXIST y Friends(Bob,y))",
		"Smokes(Anna) ^ Anna = Anna", "Smokes(Bob) ^ Bob = Anna",
	}
	if !reflect.DeepEqual(texts, want) {
		t.Fatalf("texts\n%q\nwant\n%q", texts, want)
	}
	if wantO := []int{0, 0, 1, 2, 2, 2, 2, 2, 2, 3, 3}; !reflect.DeepEqual(origin, wantO) {
		t.Errorf("origin %v, want %v", origin, wantO)
	}
	for k, f := range out.Formulas {
		o := m.Formulas[origin[k]]
		if f.Weight != o.Weight || f.HasWeight != o.HasWeight || f.Hard != o.Hard || f.Pos != o.Pos {
			t.Errorf("formula %d (%s): weight/hard/position %v %v %v %v, original %v %v %v %v", k, f.Text, f.Weight, f.HasWeight, f.Hard, f.Pos, o.Weight, o.HasWeight, o.Hard, o.Pos)
		}
		for _, v := range f.Vars {
			if v.PerConstant {
				t.Errorf("formula %d (%s) still has +%s", k, f.Text, v.Name)
			}
		}
	}
	if n := len(out.Formulas[0].Vars); n != 0 {
		t.Errorf("Smokes(Anna) => Cancer(Anna) has %d free variables", n)
	}
	// The expanded model reads back from its own printout.
	if _, err := mlnfile.Parse("again.mln", []byte(out.String())); err != nil {
		t.Errorf("printout does not parse: %v\n%s", err, out)
	}

	// A domain given by the caller (the training databases' constants).
	out, origin, err := mln.Expand(m, func(typ string) []string {
		if typ == "person" {
			return []string{"Anna", "Bob", "Carl"}
		}
		return nil // no colours: the Likes formula vanishes
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Formulas) != 3+1+3 || origin[2] != 0 || out.Formulas[2].Text != "Smokes(Carl) => Cancer(Carl)" {
		t.Errorf("with Carl: %d formulas, origin %v, third %q", len(out.Formulas), origin, out.Formulas[2].Text)
	}
	if out.Type("person").ConstIndex("Carl") != 2 {
		t.Errorf("Carl is not a person of the expanded model: %v", out.Type("person").Constants)
	}

	// Without "+" the model itself comes back.
	m2, err := mlnfile.Parse("p.mln", []byte("person = {A}\nP(person)\n1 P(x)\n"))
	if err != nil {
		t.Fatal(err)
	}
	if out, origin, err := mln.Expand(m2, nil); err != nil || out != m2 || !reflect.DeepEqual(origin, []int{0}) {
		t.Errorf("no +x: got %p (want %p), %v, %v", out, m2, origin, err)
	}

	// A "constant" that would read back as a variable is refused.
	_, _, err = mln.Expand(m, func(string) []string { return []string{"anna"} })
	if err == nil || !strings.Contains(err.Error(), "not written like a constant") {
		t.Errorf("lower-case constant: %v", err)
	}
}

func TestExpandStarred(t *testing.T) {
	src := "person = {A, B}\nphase = {Pre, Post}\nIn(person, phase)\nSmokes(person)\n*In(s, Pre) v *In(s, Post)\n*Smokes(+x) ^ In(x, p).\n"
	_, out, origin := parseExpand(t, src)
	var texts []string
	for _, f := range out.Formulas {
		texts = append(texts, f.Text)
		if len(mln.StarredAtoms(f)) > 0 {
			t.Errorf("%s is still starred", f.Text)
		}
	}
	want := []string{
		"In(s,Pre) v In(s,Post)", "!In(s,Pre) v In(s,Post)", "In(s,Pre) v !In(s,Post)", "!In(s,Pre) v !In(s,Post)",
		"Smokes(A) ^ In(A,p)", "!Smokes(A) ^ In(A,p)", "Smokes(B) ^ In(B,p)", "!Smokes(B) ^ In(B,p)",
	}
	if !reflect.DeepEqual(texts, want) {
		t.Fatalf("texts\n%q\nwant\n%q", texts, want)
	}
	if wantO := []int{0, 0, 0, 0, 1, 1, 1, 1}; !reflect.DeepEqual(origin, wantO) {
		t.Errorf("origin %v, want %v", origin, wantO)
	}
	if f := out.Formulas[5]; !f.Hard || len(f.Vars) != 1 {
		t.Errorf("%s: hard %v, %d free variables; want hard with p free", f.Text, f.Hard, len(f.Vars))
	}
	many := "P\n1 " + strings.Repeat("*P v ", 10) + "*P\n"
	m, err := mlnfile.Parse("many.mln", []byte(many))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := mln.Expand(m, nil); err == nil || !strings.Contains(err.Error(), "11 starred atoms") {
		t.Errorf("11 starred atoms: %v", err)
	}
}

func parseExpand(t *testing.T, src string) (m, out *mln.MLN, origin []int) {
	t.Helper()
	m, err := mlnfile.Parse("e.mln", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	out, origin, err = mln.Expand(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m, out, origin
}
