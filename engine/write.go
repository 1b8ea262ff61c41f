package engine

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/lifted-dev/lifted/format/uai"
	"github.com/lifted-dev/lifted/infer"
)

// The writers of a Result: WriteJSON (the one JSON schema,
// result.schema.json, for every route, method and task), WriteAlchemy
// (Alchemy's result format for an MLN: one query atom per line) and
// WriteUAI (the UAI MAR or MPE format for a factor graph).

// WriteAlchemy prints one query atom per line with its probability (six
// significant digits, as Alchemy) or, for MAP, its value 0 or 1. An answer
// that did not converge starts with a comment line saying so, in the //
// syntax of Alchemy's files; a dynamic run prints each step under a
// comment line naming it.
func WriteAlchemy(w io.Writer, r *Result) error {
	bw := bufio.NewWriter(w)
	if r.Route == RouteDynamic {
		for _, s := range r.Steps {
			if s.Smoothed {
				fmt.Fprintf(bw, "// smoothed (evidence of steps 0..%d)\n", r.Dynamic.Horizon)
			} else {
				fmt.Fprintf(bw, "// step %d: filtered (evidence of steps 0..%d)\n", s.Step, s.Step)
			}
			for _, a := range s.Marginals {
				fmt.Fprintf(bw, "%s %s\n", a.Name, FormatProb(a.P))
			}
		}
		return bw.Flush()
	}
	if note := r.StatusNote(); note != "" {
		fmt.Fprintf(bw, "// %s\n", note)
	}
	probs := map[int32]string{} // a clusternode's probability, formatted once
	var line []byte
	for a := range r.Atoms() {
		line = append(append(line[:0], a.Name...), ' ')
		switch {
		case r.Task == infer.MAP:
			line = strconv.AppendInt(line, int64(a.Value), 10)
		case a.node > 0:
			p, ok := probs[a.node]
			if !ok {
				p = FormatProb(a.P)
				probs[a.node] = p
			}
			line = append(line, p...)
		default:
			line = append(line, FormatProb(a.P)...)
		}
		line = appendStatus(line, a)
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	if note := r.stdErrNote(); note != "" {
		fmt.Fprintf(bw, "// %s\n", note)
	}
	return bw.Flush()
}

// appendStatus appends to an Alchemy result line the status of a
// marginal that carries more than its value, as a comment after it
// (readers of the format take the first two fields): a mixed sampler
// estimate's standard error, an unresolved marginal's interval and why.
// Exact answers and BP fixed points (said once, in the summary) add
// nothing.
func appendStatus(line []byte, a Atom) []byte {
	switch a.Status {
	case StatusMixed:
		if math.IsNaN(a.StdErr) || math.IsInf(a.StdErr, 0) {
			return append(line, " // mixed"...)
		}
		line = append(line, " // mixed ±"...)
		return strconv.AppendFloat(line, a.StdErr, 'g', 2, 64)
	case StatusUnresolved:
		line = append(line, " // unresolved ["...)
		line = strconv.AppendFloat(line, a.Lo, 'f', 3, 64)
		line = append(line, ", "...)
		line = strconv.AppendFloat(line, a.Hi, 'f', 3, 64)
		line = append(line, "]: "...)
		return append(line, a.Why...)
	}
	return line
}

// FormatProb prints a probability with six significant digits, as Alchemy
// does (NaN, a belief no method gave, as 0.5).
func FormatProb(p float64) string {
	if math.IsNaN(p) {
		p = 0.5
	}
	return strconv.FormatFloat(p, 'g', 6, 64)
}

// WriteUAI prints a factor graph's answer in the UAI MAR format, or for
// MAP the MPE format.
func WriteUAI(w io.Writer, r *Result) error {
	if r.Task == infer.MAP {
		return uai.WriteMPE(w, r.Assignment)
	}
	return uai.WriteMAR(w, r.Marginals)
}

// WriteJSON prints the Result as one JSON object (result.schema.json):
// schema_version, task, method, method_reason, converged, marginals,
// std_errors, assignment, status, log_z, log_z_kind, objective, bound, gap and
// stats, always in this order and always present (null where they do not
// apply); a dynamic run adds steps, each with the same fields and its
// step and kind. Query atoms are written in query order.
func WriteJSON(w io.Writer, r *Result) error {
	bw := bufio.NewWriter(w)
	j := &jsonWriter{w: bw}
	j.raw(`{"schema_version":`)
	j.raw(strconv.Itoa(SchemaVersion))
	j.raw(`,"task":`)
	j.str(r.Task.String())
	j.fields(r)
	if r.Route == RouteDynamic {
		j.raw(`,"steps":[`)
		for i, s := range r.Steps {
			if i > 0 {
				j.raw(",")
			}
			kind := "filtered"
			if s.Smoothed {
				kind = "smoothed"
			}
			j.raw(`{"step":`)
			j.raw(strconv.Itoa(s.Step))
			j.raw(`,"kind":`)
			j.str(kind)
			j.raw(`,"method":`)
			j.str(r.Method)
			j.raw(`,"method_reason":null,"converged":`)
			j.raw(strconv.FormatBool(s.Converged))
			j.raw(`,"marginals":{`)
			for k, a := range s.Marginals {
				j.key(k, a.Name)
				j.num(a.P, 'g')
			}
			j.raw(`},"std_errors":null,"assignment":null,"log_z":null,"log_z_kind":"none","objective":null,"bound":null,"gap":null,"stats":`)
			j.value(s.Stats)
			j.raw("}")
		}
		j.raw("]")
	}
	j.raw("}\n")
	if j.err != nil {
		return j.err
	}
	return bw.Flush()
}

// fields writes the fields every result has, after the task.
func (j *jsonWriter) fields(r *Result) {
	isMAP := r.Task == infer.MAP
	j.raw(`,"method":`)
	j.str(r.Method)
	j.raw(`,"method_reason":`)
	if r.MethodReason == "" {
		j.raw("null")
	} else {
		j.str(r.MethodReason)
	}
	j.raw(`,"converged":`)
	j.raw(strconv.FormatBool(r.Converged))
	stdErr := r.Answer != nil && r.Answer.StdErr != nil
	if r.IsMLN() {
		atoms := func(val func(Atom)) {
			j.raw("{")
			i := 0
			for a := range r.Atoms() {
				j.key(i, a.Name)
				val(a)
				i++
			}
			j.raw("}")
		}
		j.raw(`,"marginals":`)
		if isMAP {
			j.raw("null")
		} else {
			atoms(func(a Atom) { j.num(a.P, 'g') })
		}
		j.raw(`,"std_errors":`)
		if isMAP || !stdErr {
			j.raw("null")
		} else {
			atoms(func(a Atom) { j.num(a.StdErr, 'g') })
		}
		j.raw(`,"assignment":`)
		if isMAP {
			atoms(func(a Atom) { j.raw(strconv.Itoa(int(a.Value))) })
		} else {
			j.raw("null")
		}
		j.raw(`,"status":`)
		if r.StatusCounts() == nil {
			j.raw("null")
		} else {
			atoms(func(a Atom) { j.status(a.AtomStatus) })
		}
	} else {
		j.raw(`,"marginals":`)
		j.matrix(r.Marginals)
		j.raw(`,"std_errors":`)
		j.matrix(r.StdErrors)
		j.raw(`,"assignment":`)
		if r.Assignment == nil {
			j.raw("null")
		} else {
			j.value(r.Assignment)
		}
		j.raw(`,"status":`)
		if r.StatusCounts() == nil || r.Answer == nil {
			j.raw("null")
		} else {
			j.raw("[")
			for v := range r.Answer.Graph.NodeOf {
				if v > 0 {
					j.raw(",")
				}
				j.status(r.VarStatus(v))
			}
			j.raw("]")
		}
	}
	j.raw(`,"log_z":`)
	if r.LogZKind == infer.NoLogZ {
		j.raw("null")
	} else {
		j.num(r.LogZ, 'j')
	}
	j.raw(`,"log_z_kind":`)
	j.str(r.LogZKind.String())
	for _, kv := range []struct {
		k string
		v *float64
	}{{"objective", r.Objective}, {"bound", r.Bound}, {"gap", r.Gap}} {
		j.raw(`,"` + kv.k + `":`)
		if kv.v == nil {
			j.raw("null")
		} else {
			j.num(*kv.v, 'j')
		}
	}
	j.raw(`,"stats":`)
	switch {
	case r.Figures != nil:
		j.value(r.Figures)
	case r.Dynamic != nil:
		j.value(r.Dynamic)
	case r.IsMLN():
		j.value(r.Stats)
	default:
		j.value(r.Stats.Stats)
	}
}

// status writes a marginal's status: {"status": "mixed"} and, when
// unresolved, its interval "lo", "hi" and "why".
func (j *jsonWriter) status(s AtomStatus) {
	j.raw(`{"status":`)
	j.str(s.Status.String())
	if s.Status == StatusUnresolved {
		j.raw(`,"lo":`)
		j.num(s.Lo, 'g')
		j.raw(`,"hi":`)
		j.num(s.Hi, 'g')
		j.raw(`,"why":`)
		j.str(s.Why)
	}
	j.raw("}")
}

// jsonWriter writes JSON by hand, in a fixed key order, keeping the first
// error.
type jsonWriter struct {
	w   *bufio.Writer
	err error
}

func (j *jsonWriter) raw(s string) {
	if j.err == nil {
		_, j.err = j.w.WriteString(s)
	}
}

// str writes a JSON string (not HTML-escaped: reasons quote formulas).
func (j *jsonWriter) str(s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			j.value(s)
			return
		}
	}
	j.raw(`"`)
	j.raw(s)
	j.raw(`"`)
}

// key writes the i-th key of an object.
func (j *jsonWriter) key(i int, name string) {
	if i > 0 {
		j.raw(",")
	}
	j.str(name)
	j.raw(":")
}

// num writes a number, null when it is not finite; format 'g' is
// strconv's shortest form, 'j' encoding/json's.
func (j *jsonWriter) num(x float64, format byte) {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		j.raw("null")
	case format == 'g':
		j.raw(strconv.FormatFloat(x, 'g', -1, 64))
	default:
		j.value(x)
	}
}

// matrix writes rows of numbers, or null.
func (j *jsonWriter) matrix(rows [][]float64) {
	if rows == nil {
		j.raw("null")
		return
	}
	j.raw("[")
	for i, row := range rows {
		if i > 0 {
			j.raw(",")
		}
		j.raw("[")
		for k, x := range row {
			if k > 0 {
				j.raw(",")
			}
			j.num(x, 'j')
		}
		j.raw("]")
	}
	j.raw("]")
}

// value writes v by encoding/json, not HTML-escaped.
func (j *jsonWriter) value(v any) {
	if j.err != nil {
		return
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if j.err = enc.Encode(v); j.err == nil {
		j.raw(string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))))
	}
}

// stdErrNote summarises a sampler's Monte Carlo standard errors for the
// Alchemy output's closing comment line (the format has no column for
// them; --output-format json has every atom's): the largest, with its
// atom, and the mean; "" when the answer has none.
func (r *Result) stdErrNote() string {
	if r.Task == infer.MAP || r.Answer == nil || r.Answer.StdErr == nil {
		return ""
	}
	var n int
	var sum, worst float64
	var at string
	for a := range r.Atoms() {
		if math.IsNaN(a.StdErr) || math.IsInf(a.StdErr, 0) {
			continue
		}
		n++
		sum += a.StdErr
		if a.StdErr > worst || at == "" {
			worst, at = a.StdErr, a.Name
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("Monte Carlo standard errors (from the effective sample size): largest %.2g (%s), mean %.2g; every atom's in --output-format json", worst, at, sum/float64(n))
}
