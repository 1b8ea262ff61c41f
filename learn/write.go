package learn

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/lifted-dev/lifted/mln"
)

// WriteMLN writes m with learned weights in the format every learner of
// this project writes: the type declarations (those with explicit
// constants), the predicate declarations, and then one line per formula —
// the weight, a space and the formula exactly as written in the input; hard
// formulas are written unchanged (with their period) and Tuffy fixed
// weights keep their "@". header, if not empty, is written first as //
// comment lines. Reading the file back gives m with the new weights.
func WriteMLN(w io.Writer, m *mln.MLN, weights []float64, header string) error {
	if len(weights) != len(m.Formulas) {
		return fmt.Errorf("got %d weights for %d formulas", len(weights), len(m.Formulas))
	}
	bw := bufio.NewWriter(w)
	if header != "" {
		for _, line := range strings.Split(strings.TrimRight(header, "\n"), "\n") {
			fmt.Fprintf(bw, "// %s\n", line)
		}
		bw.WriteString("\n")
	}
	for _, t := range m.Types {
		if s := t.String(); s != "" {
			fmt.Fprintln(bw, s)
		}
	}
	for _, d := range m.Preds {
		fmt.Fprintln(bw, d.String())
	}
	bw.WriteString("\n")
	for j, f := range m.Formulas {
		text := oneLine(f.Text)
		switch {
		case f.Hard:
			fmt.Fprintf(bw, "%s.\n", text)
		case math.IsNaN(weights[j]) || math.IsInf(weights[j], 0):
			return fmt.Errorf("formula %d (%s): weight %v is not finite", j+1, f.Text, weights[j])
		case f.FixedWeight:
			fmt.Fprintf(bw, "@%s %s\n", mln.FormatWeight(weights[j]), text)
		default:
			fmt.Fprintf(bw, "%s %s\n", mln.FormatWeight(weights[j]), text)
		}
	}
	return bw.Flush()
}

// oneLine joins a formula written over several lines.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}
