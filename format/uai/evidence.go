package uai

import (
	"errors"
	"fmt"
	"io"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/format/internal/tok"
	"github.com/lifted-dev/lifted/pos"
)

// ReadEvidence reads a UAI evidence file for the model g. Two forms occur in
// real files:
//
//	N v1 x1 … vN xN        UAI 2014: N observed variables and their values
//	S N v1 x1 … vN xN …    UAI 2010: S samples, each in the 2014 form
//
// A file of exactly 2×N+1 tokens, N being the first, is read in the 2014
// form, any other in the 2010 form, of which only the first sample is used
// (the others are checked too). "0" is valid and means no evidence. The
// result has one entry per variable of g, -1 where unobserved. Errors are
// *pos.Error values.
func ReadEvidence(r io.Reader, name string, g *fg.Graph) (fg.Evidence, error) {
	if g == nil {
		return nil, errors.New("uai: ReadEvidence: nil graph")
	}
	e := &evidenceReader{g: g}
	if err := e.scan(tok.NewScanner(r, name)); err != nil {
		return nil, err
	}
	if len(e.vals) == 0 {
		return nil, pos.Errorf(e.end, "unexpected end of file: expected the number of observed variables")
	}
	first := e.vals[0]
	if first < 0 {
		return nil, pos.Errorf(e.at[0], "expected the number of observed variables (or of samples), found %d", first)
	}
	if n := int64(len(e.vals) - 1); n%2 == 0 && n/2 == first {
		ev := fg.NoEvidence(g.NumVars())
		if _, err := e.sample(0, ev, 0); err != nil {
			return nil, err
		}
		return ev, nil
	}
	return e.read2010()
}

// evidenceReader holds the integer tokens of an evidence file and their
// positions.
type evidenceReader struct {
	g    *fg.Graph
	vals []int64
	at   []pos.Position
	end  pos.Position // end of input
	hint string       // explains the form on structural errors
}

func (e *evidenceReader) scan(s *tok.Scanner) error {
	for s.Next() {
		v, ok := tok.ParseInt(s.Token())
		if !ok || s.Long() {
			return s.Errorf("expected an integer, found %s", s.Quoted())
		}
		e.vals = append(e.vals, v)
		e.at = append(e.at, s.Pos())
	}
	e.end = s.Pos()
	return s.IOErr()
}

func (e *evidenceReader) read2010() (fg.Evidence, error) {
	samples := e.vals[0]
	e.hint = fmt.Sprintf(" (UAI-2010 evidence: the file has %d tokens, not 2×%d+1, so its first token is the number of samples)",
		len(e.vals), samples)
	if samples == 0 {
		return nil, pos.Errorf(e.at[0], "number of evidence samples is 0; there must be at least one%s", e.hint)
	}
	ev := fg.NoEvidence(e.g.NumVars())
	var scratch fg.Evidence
	i := 1
	for k := int64(0); k < samples; k++ {
		if i == len(e.vals) {
			return nil, pos.Errorf(e.end, "unexpected end of file: expected evidence sample %d of %d%s", k+1, samples, e.hint)
		}
		into := ev
		if k > 0 {
			if scratch == nil {
				scratch = fg.NoEvidence(e.g.NumVars())
			}
			into = scratch
		}
		next, err := e.sample(i, into, k+1)
		if err != nil {
			return nil, err
		}
		if k > 0 { // reset the observations of this sample
			for j := i + 1; j < next; j += 2 {
				scratch[e.vals[j]] = -1
			}
		}
		i = next
	}
	if i < len(e.vals) {
		return nil, pos.Errorf(e.at[i], "unexpected %d after the %d evidence samples%s", e.vals[i], samples, e.hint)
	}
	return ev, nil
}

// sample reads one sample (N v1 x1 … vN xN) starting at token i into ev,
// which must be all -1, and returns the index after it. k numbers samples
// from 1 in messages; 0 means the file has only one.
func (e *evidenceReader) sample(i int, ev fg.Evidence, k int64) (int, error) {
	in := ""
	if k > 0 {
		in = fmt.Sprintf(" in sample %d", k)
	}
	n := e.vals[i]
	if n < 0 {
		return 0, pos.Errorf(e.at[i], "number of observed variables%s is %d; it must not be negative", in, n)
	}
	nv := int64(e.g.NumVars())
	for p := int64(0); p < n; p++ {
		vi := int64(i) + 1 + 2*p
		if vi+1 >= int64(len(e.vals)) {
			what := "observed variable"
			if vi < int64(len(e.vals)) {
				what = "the value of observed variable"
			}
			return 0, pos.Errorf(e.end, "unexpected end of file: expected %s %d of %d%s%s",
				what, p+1, n, in, e.hint)
		}
		v, x := e.vals[vi], e.vals[vi+1]
		if v < 0 || v >= nv {
			return 0, pos.Errorf(e.at[vi], "observed variable %d%s is out of range 0..%d", v, in, nv-1)
		}
		if c := int64(e.g.Card[v]); x < 0 || x >= c {
			return 0, pos.Errorf(e.at[vi+1], "value %d of variable %d%s is out of range 0..%d", x, v, in, c-1)
		}
		if old := ev[v]; old >= 0 && int64(old) != x {
			return 0, pos.Errorf(e.at[vi], "variable %d observed twice%s with different values, %d and %d", v, in, old, x)
		}
		ev[v] = int32(x)
	}
	return i + 1 + 2*int(n), nil
}

// WriteEvidence writes ev in the UAI 2014 form: the number of observed
// variables, then each observed variable and its value. A nil ev writes "0".
func WriteEvidence(w io.Writer, ev fg.Evidence) error {
	n := 0
	for _, x := range ev {
		if x >= 0 {
			n++
		}
	}
	o := tok.NewWriter(w)
	o.Int(int64(n))
	for v, x := range ev {
		if x >= 0 {
			o.Byte(' ')
			o.Int(int64(v))
			o.Byte(' ')
			o.Int(int64(x))
		}
	}
	o.NL()
	return o.Flush()
}
