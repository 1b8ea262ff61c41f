package score

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Answer is an inference result read from a file: a probability per
// ground atom.
type Answer struct {
	// Name is the file's name, for errors.
	Name string
	// Format is what the file was read as: "alchemy" (ATOM PROB per line,
	// Alchemy's .result and lifted's default), "tuffy" (PROB<tab>ATOM,
	// Tuffy's marginal output), "atoms" (ATOM per line, a MAP world as
	// Tuffy prints it: listed atoms true) or "json" (lifted's
	// --output-format json: "marginals", or for MAP "assignment").
	Format string
	// Atoms in file order, with their probabilities and where they were.
	Atoms []AnswerAtom
}

// AnswerAtom is one atom of an Answer.
type AnswerAtom struct {
	Pred string   // the predicate as written
	Args []string // the constants, spaces trimmed
	P    float64
	Line int // 1-based line in the file (0 for JSON)
}

// ReadAnswerFile reads an inference result (see Answer for the formats,
// which are told apart by their content).
func ReadAnswerFile(path string) (*Answer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ReadAnswer(bytes.NewReader(b), path)
}

// ReadAnswer reads an inference result from r; name is used in errors
// (file:line: message).
func ReadAnswer(r io.Reader, name string) (*Answer, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '{' {
		return readJSON(t, name)
	}
	a := &Answer{Name: name}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<24)
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "//") || strings.HasPrefix(line, "#") {
			continue
		}
		if i := strings.Index(line, " //"); i > 0 {
			// lifted's status comment after the probability:
			// "// mixed ±0.002", "// unresolved [0.2, 0.7]: why"
			line = strings.TrimSpace(line[:i])
		}
		at, format, err := parseLine(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, ln, err)
		}
		if a.Format == "" {
			a.Format = format
		} else if a.Format != format {
			return nil, fmt.Errorf("%s:%d: a line in the %s format in a file of the %s format", name, ln, format, a.Format)
		}
		at.Line = ln
		a.Atoms = append(a.Atoms, at)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if len(a.Atoms) == 0 {
		return nil, fmt.Errorf("%s: no atoms", name)
	}
	return a, nil
}

// parseLine reads "ATOM PROB", "PROB ATOM" or "ATOM".
func parseLine(line string) (AnswerAtom, string, error) {
	var at AnswerAtom
	open := strings.IndexByte(line, '(')
	var atom, before, after string
	if open < 0 {
		// a predicate without arguments: the field that is not a number
		f := strings.Fields(line)
		switch {
		case len(f) == 1:
			atom = f[0]
		case len(f) == 2 && isNum(f[1]):
			atom, after = f[0], f[1]
		case len(f) == 2 && isNum(f[0]):
			before, atom = f[0], f[1]
		default:
			return at, "", fmt.Errorf("want ATOM PROB, PROB ATOM or ATOM, got %q", line)
		}
	} else {
		start := strings.LastIndexAny(line[:open], " \t") + 1
		end := strings.LastIndexByte(line, ')') + 1
		if end <= open {
			return at, "", fmt.Errorf("unclosed '(' in %q", line)
		}
		atom, before, after = line[start:end], strings.TrimSpace(line[:start]), strings.TrimSpace(line[end:])
	}
	pred, args, err := splitAtom(atom)
	if err != nil {
		return at, "", err
	}
	at.Pred, at.Args = pred, args
	format, num := "atoms", ""
	switch {
	case before != "" && after != "":
		return at, "", fmt.Errorf("text both before and after the atom in %q", line)
	case after != "":
		format, num = "alchemy", after
	case before != "":
		format, num = "tuffy", before
	}
	at.P = 1
	if num != "" {
		p, err := strconv.ParseFloat(num, 64)
		if err != nil || math.IsNaN(p) || p < 0 || p > 1 {
			return at, "", fmt.Errorf("want a probability in [0, 1], got %q", num)
		}
		at.P = p
	}
	return at, format, nil
}

func isNum(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// splitAtom splits "P(A, B)" into "P" and ["A" "B"] ("P" alone: no
// arguments).
func splitAtom(s string) (string, []string, error) {
	s = strings.TrimSpace(s)
	open := strings.IndexByte(s, '(')
	if open < 0 {
		if s == "" || strings.ContainsAny(s, " \t)") {
			return "", nil, fmt.Errorf("not an atom: %q", s)
		}
		return s, nil, nil
	}
	if !strings.HasSuffix(s, ")") || open == 0 {
		return "", nil, fmt.Errorf("not an atom: %q", s)
	}
	pred := strings.TrimSpace(s[:open])
	var args []string
	for a := range strings.SplitSeq(s[open+1:len(s)-1], ",") {
		a = strings.TrimSpace(a)
		if a == "" {
			return "", nil, fmt.Errorf("empty argument in %q", s)
		}
		args = append(args, a)
	}
	return pred, args, nil
}

// readJSON reads lifted's JSON result (engine.WriteJSON).
func readJSON(b []byte, name string) (*Answer, error) {
	var r struct {
		Marginals  map[string]*float64 `json:"marginals"`
		Assignment json.RawMessage     `json:"assignment"`
		Steps      json.RawMessage     `json:"steps"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if len(r.Steps) > 0 && string(r.Steps) != "null" {
		return nil, fmt.Errorf("%s: a dynamic run's answer (steps): score one step's atoms, written in the alchemy format", name)
	}
	a := &Answer{Format: "json", Name: name}
	add := func(atom string, p float64) error {
		pred, args, err := splitAtom(atom)
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		if math.IsNaN(p) || p < 0 || p > 1 {
			return fmt.Errorf("%s: %s: want a probability in [0, 1], got %g", name, atom, p)
		}
		a.Atoms = append(a.Atoms, AnswerAtom{Pred: pred, Args: args, P: p})
		return nil
	}
	switch {
	case r.Marginals != nil:
		for atom, p := range r.Marginals {
			q := math.NaN()
			if p != nil {
				q = *p
			}
			if err := add(atom, q); err != nil {
				return nil, err
			}
		}
	case len(r.Assignment) > 0 && r.Assignment[0] == '{':
		var as map[string]int
		if err := json.Unmarshal(r.Assignment, &as); err != nil {
			return nil, fmt.Errorf("%s: assignment: %v", name, err)
		}
		for atom, v := range as {
			if err := add(atom, float64(v)); err != nil {
				return nil, err
			}
		}
	default:
		return nil, fmt.Errorf("%s: no MLN atoms (\"marginals\" or \"assignment\" keyed by atom)", name)
	}
	// a JSON object has no order: sort by atom
	slices.SortFunc(a.Atoms, func(x, y AnswerAtom) int {
		if c := strings.Compare(x.Pred, y.Pred); c != 0 {
			return c
		}
		return slices.Compare(x.Args, y.Args)
	})
	if len(a.Atoms) == 0 {
		return nil, fmt.Errorf("%s: no atoms", name)
	}
	return a, nil
}
