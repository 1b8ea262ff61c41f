// Command colourpass runs colour passing as an Apache Beam pipeline and
// writes the statistics JSON of "lifted compress" (and the colour of every
// variable and factor beside it).
//
//	go run ./cmd/colourpass --runner=prism --input MODEL [--evidence EV] --output STATS.json
//
// MODEL is a .uai, .fg or .cnf factor graph. --runner is Beam's: prism (the
// local runner, the default), or universal with --endpoint for a Flink or
// Spark job server, or dataflow (see beam/README.md).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/lifted-dev/lifted/beam/colourpass"
	"github.com/lifted-dev/lifted/format"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/lift"
)

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

func main() {
	input := flag.String("input", "", "factor graph: .uai, .fg or .cnf (required)")
	var evidence listFlag
	flag.Var(&evidence, "evidence", "UAI .evid evidence file (repeatable)")
	output := flag.String("output", "", "statistics JSON, as lifted compress writes it (required)")
	colours := flag.String("colours", "", "colour of every variable and factor, one \"v|f ID CLASS\" line each (default: OUTPUT with .colours.txt)")
	modelFormat := flag.String("format", "", "model format: uai, fg or cnf (default: from the extension)")
	colorMode := flag.String("color-mode", "auto", "auto, positional, symmetric or cnf, as lifted compress")
	parts := flag.Int("parts", 4, "parts the graph is split into (by variable ranges, copy nodes at the borders)")
	perJob := flag.Int("rounds-per-job", 4, "colour-passing rounds per Beam job")
	workDir := flag.String("workdir", "", "directory for parts and colours between jobs, on a filesystem the workers read (default: a temporary directory, local runners only)")
	quiet := flag.Bool("quiet", false, "no progress on stderr")
	flag.Parse()
	beam.Init()
	if err := run(context.Background(), *input, evidence, *output, *colours, *modelFormat, *colorMode, *parts, *perJob, *workDir, *quiet); err != nil {
		fmt.Fprintln(os.Stderr, "colourpass:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, input string, evidence []string, output, colours, modelFormat, colorMode string, parts, perJob int, workDir string, quiet bool) error {
	if input == "" || output == "" {
		return fmt.Errorf("need --input MODEL and --output STATS.json")
	}
	if parts < 1 || perJob < 1 {
		return fmt.Errorf("--parts and --rounds-per-job must be at least 1")
	}
	m, err := format.Load(input, format.Options{Format: modelFormat})
	if err != nil {
		return err
	}
	ev, err := format.LoadEvidence(evidence, m.Graph)
	if err != nil {
		return err
	}
	var opt lift.Options
	switch colorMode {
	case "auto", "":
		if m.Format == "cnf" {
			opt.Mode = lift.CNF
		}
	case "positional":
	case "cnf":
		opt.Mode = lift.CNF
	case "symmetric":
		opt.Mode = lift.Symmetric
		opt.Symmetric = make([]bool, len(m.Graph.Tables))
		for t := range m.Graph.Tables {
			opt.Symmetric[t] = lift.IsSymmetric(&m.Graph.Tables[t])
		}
	default:
		return fmt.Errorf("unknown --color-mode %q (want auto, positional, symmetric or cnf)", colorMode)
	}
	if !quiet {
		opt.Progress = func(round, v, f int) {
			fmt.Fprintf(os.Stderr, "colourpass: round %d: %d variable and %d factor colours\n", round, v, f)
		}
	}
	var st colourpass.Stats
	r := colourpass.Refiner{Parts: parts, RoundsPerJob: perJob, WorkDir: workDir, Run: beamx.Run, Stats: &st}
	start := time.Now()
	c, stats, err := infer.CompressWith(ctx, r, m.Graph, ev, true, opt)
	if err != nil {
		return err
	}
	if !quiet {
		fmt.Fprintf(os.Stderr, "colourpass: %d parts, %d cut edges, %d+%d copy nodes, %d jobs, %.3f s\n",
			st.Parts, st.CutEdges, st.CopyVars, st.CopyFactors, st.Jobs, time.Since(start).Seconds())
	}
	if colours == "" {
		colours = strings.TrimSuffix(output, filepath.Ext(output)) + ".colours.txt"
	}
	if err := writeWhole(colours, func(w *bufio.Writer) error {
		for v, x := range c.NodeOf {
			fmt.Fprintf(w, "v %d %d\n", v, x)
		}
		for f, x := range c.FactorOf {
			fmt.Fprintf(w, "f %d %d\n", f, x)
		}
		return nil
	}); err != nil {
		return err
	}
	return writeWhole(output, func(w *bufio.Writer) error { return json.NewEncoder(w).Encode(stats) })
}

// writeWhole writes a file whole or not at all (a temporary file renamed).
func writeWhole(path string, write func(*bufio.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".colourpass-*")
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
