package mlnfile

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/mln"
)

// mln.Expand and mln.MutexAsFormulas build their result with an
// mln.Builder. They used to print the model and parse the printout; these
// tests check that the result is still what that parse gives: the same
// trees, types (in the same order), texts and formula positions.

// rebuildModels returns the models to check: the fixtures, a few inline
// ones with "+", "*" and "!", and the shared corpus where present.
func rebuildModels(t *testing.T) map[string]*mln.MLN {
	t.Helper()
	ms := map[string]*mln.MLN{}
	srcs := map[string]string{
		"plus.mln": "person = {Anna, Bob}\ncolor = {Red, Green}\nSmokes(person)\nCancer(person)\nLikes(person, color!)\nFriends(person, person)\n" +
			"1.5 Smokes(+x) => Cancer(x)\nLikes(+x, +c) ^ EXIST y Friends(x, y).\n@2 *Smokes(x) v *Cancer(x)\nSmokes(+p) ^ (p = Anna)\nP(t) \n(Smokes(+x))\nSmokes(x).\n",
		"mutex.mln": "Has(o, a!, b, c!)\n*Knows(o, o)\nt f(o)\nt = {1,...,4}\nR(t!)\nKnows(x, y) => Has(x, A, B, C)\nR(f(x)) v x = y ^ Knows(x, y)\n",
		"open.mln":  "P(a)\nt = {A}\nQ(t, a, b)\n1 Q(+x, y, B) ^ P(y)\n",
	}
	for name, src := range srcs {
		ms[name] = mustParse(t, name, src)
	}
	files, _ := filepath.Glob("testdata/*.mln")
	if _, err := os.Stat(sharedRoot); err == nil {
		for _, c := range sharedMLNs {
			if c.err == "" {
				fs, _ := filepath.Glob(filepath.Join(sharedRoot, c.glob))
				files = append(files, fs...)
			}
		}
	}
	for _, f := range files {
		if m, err := ParseFile(f); err == nil {
			ms[f] = m
		}
	}
	return ms
}

func TestExpandAsReparse(t *testing.T) {
	for name, m := range rebuildModels(t) {
		out, origin, err := mln.Expand(m, nil)
		if err != nil {
			if !strings.Contains(err.Error(), "more than") {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		if out == m || len(out.Formulas) > 20000 {
			continue
		}
		var src strings.Builder
		src.WriteString(m.Declarations())
		for _, f := range out.Formulas {
			src.WriteString(f.String() + "\n")
		}
		want, err := Parse(name+" (expanded)", []byte(src.String()))
		if err != nil {
			t.Errorf("%s: printout does not parse: %v", name, err)
			continue
		}
		for k, g := range want.Formulas {
			f := m.Formulas[origin[k]]
			g.Pos = f.Pos
			if !expands(f) {
				g.Text = f.Text
			}
		}
		compareRebuilt(t, name, out, want)
	}
}

func TestMutexAsReparse(t *testing.T) {
	for name, m := range rebuildModels(t) {
		out, added, err := mln.MutexAsFormulas(m)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if out == m {
			continue
		}
		var src strings.Builder
		for _, d := range m.Types {
			if s := d.String(); s != "" {
				src.WriteString(s + "\n")
			}
		}
		for _, d := range m.Funcs {
			src.WriteString(d.String() + "\n")
		}
		var from []*mln.PredDecl
		for _, d := range m.Preds {
			c := *d
			c.MutexArgs = nil
			src.WriteString(c.String() + "\n")
			if len(d.MutexArgs) > 0 {
				from = append(from, d)
			}
		}
		if added != len(from) {
			t.Errorf("%s: %d added, want %d", name, added, len(from))
		}
		for _, f := range m.Formulas {
			src.WriteString(f.String() + "\n")
		}
		for i, d := range from {
			text := out.Formulas[len(m.Formulas)+i].Text
			src.WriteString(strings.TrimSuffix(text, " (from "+d.String()+")") + ".\n")
		}
		want, err := Parse(name+" (mutual exclusion as formulas)", []byte(src.String()))
		if err != nil {
			t.Errorf("%s: printout does not parse: %v\n%s", name, err, src.String())
			continue
		}
		for k, f := range m.Formulas {
			want.Formulas[k].Text, want.Formulas[k].Pos = f.Text, f.Pos
		}
		for i, d := range from {
			f := want.Formulas[len(m.Formulas)+i]
			f.Text += " (from " + d.String() + ")"
			f.Pos = d.Pos
		}
		compareRebuilt(t, name, out, want)
	}
}

func compareRebuilt(t *testing.T, name string, got, want *mln.MLN) {
	t.Helper()
	if g, w := dumpMLN(got), dumpMLN(want); g != w {
		t.Errorf("%s: built\n%s\nparsed\n%s", name, g, w)
		return
	}
	var gt, wt []string
	for i := range got.Types {
		gt, wt = append(gt, got.Types[i].Name), append(wt, want.Types[i].Name)
	}
	if strings.Join(gt, " ") != strings.Join(wt, " ") {
		t.Errorf("%s: types %v, parsed %v", name, gt, wt)
	}
	for i, d := range got.Preds {
		if w := want.Preds[i]; d.Index != w.Index || d.MutexArg != w.MutexArg || !slices.Equal(d.TypeIdx, w.TypeIdx) {
			t.Errorf("%s: predicate %s: index %d %d, type indices %v, parsed %d %d %v", name, d.Name, d.Index, d.MutexArg, d.TypeIdx, w.Index, w.MutexArg, w.TypeIdx)
		}
	}
	for i, d := range got.Funcs {
		if w := want.Funcs[i]; d.Index != w.Index || d.RetIdx != w.RetIdx || !slices.Equal(d.TypeIdx, w.TypeIdx) {
			t.Errorf("%s: function %s: indices differ from the parsed ones", name, d.Name)
		}
	}
	for k, f := range got.Formulas {
		w := want.Formulas[k]
		if f.Text != w.Text || f.Pos != w.Pos || f.String() != w.String() {
			t.Errorf("%s: formula %d: %q at %s, parsed %q at %s", name, k, f.Text, f.Pos, w.Text, w.Pos)
		}
	}
}

// expands reports whether Expand writes f out (it has "+x" or "*P").
func expands(f *mln.Formula) bool {
	for _, v := range f.Vars {
		if v.PerConstant {
			return true
		}
	}
	star := false
	mln.Inspect(f.Expr, func(e mln.Expr) bool {
		if a, ok := e.(*mln.Atom); ok && a.Star {
			star = true
		}
		return true
	})
	return star
}
