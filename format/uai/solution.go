package uai

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/lifted-dev/lifted/format/internal/tok"
	"github.com/lifted-dev/lifted/pos"
)

// ReadMAR reads marginals in the UAI MAR format: an optional "MAR" line, the
// number of variables, then for each variable its cardinality followed by its
// probabilities. Line breaks are free. A file that does not read that way is
// tried in the UAI 2010 form, which puts a sample count before one such block
// per evidence sample, and the first block is returned; when neither works,
// the error is the one for the 2014 form. Errors are *pos.Error values.
func ReadMAR(r io.Reader, name string) ([][]float64, error) {
	return readSolution(r, name, readMAR)
}

// ReadPR reads a UAI PR file: an optional "PR" line and the log10 of the
// partition function (the probability of the evidence). As in ReadMAR, the
// UAI 2010 form, with a sample count before one value per sample, is tried
// when that fails, and its first value is returned. "-inf" is accepted for
// zero probability. Errors are *pos.Error values.
func ReadPR(r io.Reader, name string) (float64, error) {
	return readSolution(r, name, readPR)
}

// readSolution reads all of r, then parses it in the 2014 form and, if that
// fails, in the 2010 form. It reports the 2014 error when both fail.
func readSolution[T any](r io.Reader, name string, parse func(s *tok.Scanner, samples bool) (T, error)) (T, error) {
	var zero T
	data, err := io.ReadAll(r)
	if err != nil {
		return zero, pos.Errorf(pos.Position{File: name}, "read error: %v", err)
	}
	v, err := parse(tok.NewScanner(bytes.NewReader(data), name), false)
	if err == nil {
		return v, nil
	}
	if v2, err2 := parse(tok.NewScanner(bytes.NewReader(data), name), true); err2 == nil {
		return v2, nil
	}
	return zero, err
}

// header skips the optional header word h.
func header(s *tok.Scanner, h string) {
	if s.Next() && string(s.Token()) != h {
		s.Unread()
	}
}

// samples reads the sample count of the 2010 form, or returns 1.
func samples(s *tok.Scanner, yes bool) (int, error) {
	if !yes {
		return 1, nil
	}
	n, err := s.Count(tok.About("the number of evidence samples"), math.MaxInt)
	if err == nil && n == 0 {
		err = s.Errorf("the number of evidence samples is 0")
	}
	return n, err
}

func readMAR(s *tok.Scanner, is2010 bool) ([][]float64, error) {
	header(s, "MAR")
	n, err := samples(s, is2010)
	if err != nil {
		return nil, err
	}
	var first [][]float64
	for k := range n {
		m, err := marginals(s)
		if err != nil {
			return nil, err
		}
		if k == 0 {
			first = m
		}
	}
	return first, s.End("the marginals")
}

// marginals reads one block of marginals.
func marginals(s *tok.Scanner) ([][]float64, error) {
	n, err := s.Count(tok.About("the number of variables"), MaxVars)
	if err != nil {
		return nil, err
	}
	m := make([][]float64, 0, min(n, 1<<16))
	for v := range n {
		c, err := s.Count(tok.About("the cardinality of variable %d", v), MaxTableSize)
		if err != nil {
			return nil, err
		}
		if c < 1 {
			return nil, s.Errorf("variable %d has cardinality 0; it must be at least 1", v)
		}
		row := make([]float64, 0, min(c, 1<<10))
		for x := range c {
			p, err := s.Entry(tok.About("probability %d of variable %d", x, v))
			if err != nil {
				return nil, err
			}
			row = append(row, p)
		}
		m = append(m, row)
	}
	return m, nil
}

func readPR(s *tok.Scanner, is2010 bool) (float64, error) {
	header(s, "PR")
	n, err := samples(s, is2010)
	if err != nil {
		return 0, err
	}
	var first float64
	for k := range n {
		var z float64
		if !s.Next() {
			return 0, s.EndErr(tok.About("the log10 partition function"))
		}
		if isNegInf(s.Token()) {
			z = math.Inf(-1)
		} else {
			s.Unread()
			if z, err = s.Float(tok.About("the log10 partition function")); err != nil {
				return 0, err
			}
			if math.IsInf(z, 1) {
				return 0, s.Errorf("the log10 partition function is %s; it must be finite or -inf", s.Quoted())
			}
		}
		if k == 0 {
			first = z
		}
	}
	return first, s.End("the log10 partition function")
}

func isNegInf(t []byte) bool {
	return strings.EqualFold(string(t), "-inf") || strings.EqualFold(string(t), "-infinity")
}

// WriteMAR writes marginals in the UAI MAR format: a line "MAR", then one
// line with the number of variables and, for each variable, its cardinality
// followed by its probabilities.
func WriteMAR(w io.Writer, marginals [][]float64) error {
	for v, row := range marginals {
		if len(row) == 0 {
			return fmt.Errorf("uai: WriteMAR: variable %d has no probabilities", v)
		}
	}
	o := tok.NewWriter(w)
	o.Str("MAR\n")
	o.Int(int64(len(marginals)))
	for _, row := range marginals {
		o.Byte(' ')
		o.Int(int64(len(row)))
		for _, p := range row {
			o.Byte(' ')
			o.Float(p)
		}
	}
	o.NL()
	return o.Flush()
}

// WriteMPE writes a most probable assignment in the UAI MPE format: a line
// "MPE", then one line with the number of variables and their values.
func WriteMPE(w io.Writer, assignment []int32) error {
	for v, x := range assignment {
		if x < 0 {
			return fmt.Errorf("uai: WriteMPE: variable %d has negative value %d", v, x)
		}
	}
	o := tok.NewWriter(w)
	o.Str("MPE\n")
	o.Int(int64(len(assignment)))
	for _, x := range assignment {
		o.Byte(' ')
		o.Int(int64(x))
	}
	o.NL()
	return o.Flush()
}

// WritePR writes the log10 of a partition function in the UAI PR format: a
// line "PR", then the value.
func WritePR(w io.Writer, log10Z float64) error {
	if math.IsNaN(log10Z) || math.IsInf(log10Z, 1) {
		return fmt.Errorf("uai: WritePR: value %v is not a log10 probability", log10Z)
	}
	o := tok.NewWriter(w)
	o.Str("PR\n")
	o.Float(log10Z)
	o.NL()
	return o.Flush()
}
