// Command tofg writes a UAI model, with the evidence of its .evid file (if
// given) multiplied in as one indicator factor per observed variable, as a
// libDAI .fg file: the input of both sides of bench/libdai/compare.sh.
//
//	go run ./bench/libdai/tofg MODEL.uai [MODEL.uai.evid] > MODEL.fg
package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/format"
	"github.com/lifted-dev/lifted/format/libdai"
	"github.com/lifted-dev/lifted/format/uai"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "tofg:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) < 1 || len(args) > 2 {
		return fmt.Errorf("usage: tofg MODEL.uai [EVIDENCE.evid] > MODEL.fg")
	}
	m, err := format.Load(args[0], format.Options{})
	if err != nil {
		return err
	}
	g := m.Graph
	ev := fg.NoEvidence(g.NumVars())
	if len(args) == 2 {
		f, err := os.Open(args[1])
		if err != nil {
			return err
		}
		ev, err = uai.ReadEvidence(f, args[1], g)
		f.Close()
		if err != nil {
			return err
		}
	}
	b := fg.NewBuilder()
	for v := range g.NumVars() {
		b.AddVar(int(g.Card[v]))
	}
	for f := range g.NumFactors() {
		if _, err := b.AddFactorTable(g.Scope(f), mustTable(b, g, f)); err != nil {
			return err
		}
	}
	for v, x := range ev {
		if x < 0 {
			continue
		}
		ind := make([]float64, g.Card[v])
		ind[x] = 1
		if _, err := b.AddFactor([]int32{int32(v)}, ind); err != nil {
			return err
		}
	}
	w := bufio.NewWriter(os.Stdout)
	if err := libdai.Write(w, &libdai.Model{Graph: b.Build()}); err != nil {
		return err
	}
	return w.Flush()
}

func mustTable(b *fg.Builder, g *fg.Graph, f int) int32 {
	t := g.Tables[g.FactorTable[f]]
	id, err := b.Table(t.Dims, t.Values)
	if err != nil {
		panic(err)
	}
	return id
}
