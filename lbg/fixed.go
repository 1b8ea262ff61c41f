package lbg

import (
	"fmt"
	"slices"
)

// fixedClusters builds the cluster graph named by Options.Clusters: each
// entry a list of predicate names; the predicates with an unknown atom
// that no entry names are a cluster each.
func (md *Model) fixedClusters() error {
	in := map[int]bool{}
	var G []*Cluster
	for _, names := range md.opt.Clusters {
		c := &Cluster{}
		for _, n := range names {
			p := md.mln.PredIndex(n)
			if p < 0 {
				return fmt.Errorf("lbg: cluster names an unknown predicate %q", n)
			}
			if in[p] {
				return fmt.Errorf("lbg: predicate %s is in two clusters", n)
			}
			in[p] = true
			if md.unknown(p) {
				c.Preds = append(c.Preds, p)
			}
		}
		if len(c.Preds) > 0 {
			G = append(G, c)
		}
	}
	for p := range md.preds {
		if !in[p] && md.unknown(p) {
			G = append(G, &Cluster{Preds: []int{p}})
		}
	}
	for _, c := range G {
		slices.Sort(c.Preds)
		for _, p := range c.Preds {
			c.Names = append(c.Names, md.preds[p].name)
		}
		md.cost(c)
	}
	md.Clusters = G
	return nil
}
