package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/exact"
	"github.com/lifted-dev/lifted/lift"
	"github.com/lifted-dev/lifted/lift/firstorder"
)

// The --construction flag: how the counted graph of an MLN is made.
const (
	constructFirstOrder = "first-order"
	constructGround     = "ground"
)

func registerConstruction(fl *pflag.FlagSet, v *string) {
	fl.StringVar(v, "construction", "", "MLN: how lifted BP's counted graph is made: first-order (from the MLN without grounding it, where that applies; otherwise grounded) or ground (ground, then colour passing); by default first-order where the evidence leaves most constants interchangeable")
}

// firstOrderNetwork builds the counted graph from the MLN when the flags
// allow it; it returns nil and the reason when the model is to be
// grounded instead.
func firstOrderNetwork(ctx context.Context, mf *mlnFlags, pm *parsedMLN, colour lift.Options, logZ bool) (*firstorder.Network, string, error) {
	switch mf.construction {
	case constructGround:
		return nil, "--construction ground", nil
	case constructFirstOrder, "":
	default:
		return nil, "", usageError{fmt.Errorf("unknown --construction %q (want first-order or ground)", mf.construction)}
	}
	colour.Progress = nil
	net, err := firstorder.Build(ctx, pm.m, pm.db, firstorder.Options{Ground: pm.opt, Colour: colour, OnlyIfSmaller: mf.construction == "", LogZ: logZ})
	if errors.Is(err, firstorder.ErrNotApplicable) {
		return nil, strings.TrimPrefix(err.Error(), firstorder.ErrNotApplicable.Error()+": "), nil
	}
	if err != nil {
		return nil, "", err
	}
	return net, "", nil
}

// inferFirstOrder answers an MLN query with lifted BP on the first-order
// counted graph when the method and the model allow it, and reports
// whether it did; otherwise it says why not.
func inferFirstOrder(ctx context.Context, cmd *cobra.Command, f *inferFlags, pm *parsedMLN, path string, alg infer.Algorithm, opt infer.Options, stdout io.Writer) (bool, string, error) {
	meth, _ := infer.Lookup(f.method)
	_, chooses := alg.(infer.Chooser)
	_, onModel := alg.(infer.FirstOrder)
	switch {
	case f.construction == constructGround:
		return false, "--construction ground", nil
	case opt.Query.Task == infer.MAP:
		return false, "MAP queries print a ground assignment", nil
	case chooses:
		return false, fmt.Sprintf("--method %s chooses its method first (--method lbp lifts before grounding)", f.method), nil
	case onModel || !meth.Lifted:
		return false, fmt.Sprintf("--method %s does not run on the lifted network", f.method), nil
	}
	net, why, err := firstOrderNetwork(ctx, &f.mlnFlags, pm, opt.Colour, f.outFormat == "json")
	if net == nil || err != nil {
		return false, why, err
	}
	return runFirstOrder(ctx, f, pm, path, alg, opt, net, "", "", stdout)
}

// runFirstOrder runs alg on the first-order network and writes the answer;
// method and reason, if set, go to the statistics (a run that auto sent
// to lifted BP).
func runFirstOrder(ctx context.Context, f *inferFlags, pm *parsedMLN, path string, alg infer.Algorithm, opt infer.Options, net *firstorder.Network, method, reason string, stdout io.Writer) (bool, string, error) {
	prog := newProgress(f.quiet)
	progressHooks(&opt, prog)
	ans, err := infer.RunCounted(ctx, alg, net.Compressed, opt)
	prog.done()
	if err != nil {
		return true, "", notConverged(path, mlnError(path, err))
	}
	if math.IsNaN(net.LogZOffset) {
		ans.LogZKind = infer.NoLogZ // the evidence offset was not computed
	}
	ans.Stats.Variables, ans.Stats.Factors, ans.Stats.Edges = int(net.Atoms), int(net.Factors), int(groundEdges(net.Compressed))
	ans.Stats.ColorIter, ans.Stats.ColorSeconds = net.Iterations, net.Seconds
	ans.Stats.Method, ans.Stats.MethodReason = method, reason
	reportRun(ans, f.quiet)
	st := firstOrderStats(ans.Stats, net)
	err = writeOutput(f.output, stdout, func(w io.Writer) error {
		if f.outFormat == "json" {
			return writeFirstOrderJSON(w, pm, net, ans, st)
		}
		return writeFirstOrderAlchemy(w, pm, net, ans)
	})
	if err == nil && !f.quiet {
		fmt.Fprintln(os.Stderr, firstOrderSummary(ans.Stats, net))
	}
	return true, "", err
}

// inferTooLarge answers with lifted BP on the first-order network when
// --method auto (which chooses on the grounding) meets a model too large
// to ground: auto would fall back to lifted BP, and the first-order
// network is what lifted BP needs. It reports whether it answered.
func inferTooLarge(ctx context.Context, f *inferFlags, pm *parsedMLN, path string, alg infer.Algorithm, opt infer.Options, groundErr error, stdout io.Writer) (bool, error) {
	a, ok := alg.(*exact.Auto)
	if !ok || !errors.Is(groundErr, ground.ErrTooLarge) || f.construction == constructGround || opt.Query.Task == infer.MAP {
		return false, nil
	}
	mf := f.mlnFlags
	mf.construction = constructFirstOrder // grounding is no alternative
	net, _, err := firstOrderNetwork(ctx, &mf, pm, opt.Colour, f.outFormat == "json")
	if net == nil || err != nil {
		return false, nil
	}
	reason := "the grounding is too large (" + shortReason(groundErr) + "); lifted BP on the first-order network"
	if a.Tried != "" {
		reason = a.Tried + "; " + reason
	}
	_, _, err = runFirstOrder(ctx, f, pm, path, a.LBP, opt, net, "lbp", reason, stdout)
	return true, err
}

// shortReason keeps the first clause of an error message.
func shortReason(err error) string {
	s := err.Error()
	if i := strings.Index(s, ";"); i > 0 {
		s = s[:i]
	}
	return s
}

// groundEdges is the number of ground edges a counted graph represents.
func groundEdges(c *lift.Compressed) int64 {
	var n int64
	for s := range c.NumEdges() {
		n += c.NodeSize[c.EdgeNode[s]] * c.EdgeCount[s]
	}
	return n
}

func firstOrderStats(st infer.Stats, net *firstorder.Network) mlnStats {
	return mlnStats{Stats: st, GroundAtoms: net.Atoms, GroundFormulas: net.Factors, GroundSeconds: net.Seconds,
		LiftedConstruction: true, GroundAtomsBuilt: int64(net.Reduced.NumAtoms), GroundFormulasBuilt: net.Reduced.NumFormulas}
}

// firstOrderSummary is the line on stderr that ends a first-order run.
func firstOrderSummary(st infer.Stats, net *firstorder.Network) string {
	conv := "converged"
	if !st.Converged {
		conv = "not converged"
	}
	return fmt.Sprintf("lifted: %d ground atoms, %d ground formulas represented (first-order construction: %d ground atoms built); %d clusternodes, %d clusterfactors; %d iterations, %s; %s s",
		net.Atoms, net.Factors, net.Reduced.NumAtoms, st.Clusternodes, st.Clusterfactors, st.BPIterations, conv,
		strconv.FormatFloat(st.Seconds+net.Seconds, 'g', 3, 64))
}

// eachQuery calls fn for each query atom that is a variable, with its
// name (valid only during the call) and clusternode, in the order the
// grounding lists them.
func eachQuery(pm *parsedMLN, net *firstorder.Network, fn func(name []byte, X int32) error) error {
	var err error
	var buf []byte
	pm.opt.QueryAtoms.Each(pm.db, func(pred int, args []int) bool {
		X, _ := net.Node(pred, args)
		if X < 0 {
			return true
		}
		buf = ground.AppendAtomName(buf[:0], pm.m, pm.db, pred, args)
		err = fn(buf, X)
		return err == nil
	})
	return err
}

// writeFirstOrderAlchemy is writeAlchemy for a first-order run: each query
// atom's marginal is its clusternode's. The 2·10⁶ lines of a large domain
// are written without a per-line allocation: the name is built in a reused
// buffer and each clusternode's probability is formatted once.
func writeFirstOrderAlchemy(w io.Writer, pm *parsedMLN, net *firstorder.Network, ans *infer.Answer) error {
	if !ans.Converged {
		if _, err := fmt.Fprintf(w, "// NOT CONVERGED: BP stopped after %d iterations (last max change %.3g)\n", ans.Stats.BPIterations, ans.MaxChange); err != nil {
			return err
		}
	}
	probs := map[int32]string{}
	var line []byte
	return eachQuery(pm, net, func(name []byte, X int32) error {
		p, ok := probs[X]
		if !ok {
			p = formatProb(ans.NodeBelief(int(X))[1])
			probs[X] = p
		}
		line = append(append(append(append(line[:0], name...), ' '), p...), '\n')
		_, err := w.Write(line)
		return err
	})
}

// writeFirstOrderJSON is writeMLNJSON for a first-order run (log_z null
// where the evidence offset was not computed).
func writeFirstOrderJSON(w io.Writer, pm *parsedMLN, net *firstorder.Network, ans *infer.Answer, st mlnStats) error {
	if _, err := io.WriteString(w, `{"marginals":{`); err != nil {
		return err
	}
	first := true
	err := eachQuery(pm, net, func(name []byte, X int32) error {
		n, _ := json.Marshal(string(name))
		sep := ","
		if first {
			sep, first = "", false
		}
		_, err := fmt.Fprintf(w, "%s%s:%s", sep, n, strconv.FormatFloat(ans.NodeBelief(int(X))[1], 'g', -1, 64))
		return err
	})
	if err != nil {
		return err
	}
	b, err := statsJSON(st)
	if err != nil {
		return err
	}
	lz, _ := json.Marshal(logZ(ans, net.LogZOffset))
	_, err = fmt.Fprintf(w, `},"log_z":%s,"stats":%s}`+"\n", lz, b)
	return err
}

// compressFirstOrder prints, for lifted compress, the sizes of the
// first-order counted graph: the ground atoms and formulas it represents,
// what was grounded to build it, and its clusternodes and clusterfactors.
func compressFirstOrder(ctx context.Context, quiet bool, mf *mlnFlags, pm *parsedMLN, path string, colour lift.Options, output string, stdout io.Writer) (bool, string, error) {
	net, why, err := firstOrderNetwork(ctx, mf, pm, colour, false)
	if net == nil || err != nil {
		return false, why, withPathErr(path, err)
	}
	st := infer.Stats{Variables: int(net.Atoms), Factors: int(net.Factors), Edges: int(groundEdges(net.Compressed)),
		Clusternodes: net.NumNodes(), Clusterfactors: net.NumFactors(), LiftedEdges: net.NumEdges(),
		ColorIter: net.Iterations, ColorSeconds: net.Seconds}
	return true, "", writeOutput(output, stdout, func(w io.Writer) error {
		return json.NewEncoder(w).Encode(firstOrderStats(st, net))
	})
}

func withPathErr(path string, err error) error {
	if err == nil {
		return nil
	}
	return mlnError(path, err)
}
