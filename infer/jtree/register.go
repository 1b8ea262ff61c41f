package jtree

import (
	"github.com/lifted-dev/lifted/infer"
)

func init() {
	infer.Register(infer.Method{
		Name:    "jtree",
		Summary: "exact marginals, log Z and MAP by junction tree over a min-fill elimination order (models of small treewidth)",
		Tasks:   []infer.Task{infer.Marginals, infer.MAP, infer.PartitionFunction},
		Props: []infer.Property{
			{Name: "max-table", Default: "16777216", Help: "refuse an elimination order whose largest clique table has more entries than this (8 bytes each)"},
			{Name: "max-total", Default: "134217728", Help: "refuse an elimination order whose clique tables together have more entries than this"},
		},
		New: func(p infer.Properties) (infer.Algorithm, error) {
			m, _ := infer.Lookup("jtree")
			var j JTree
			for _, x := range []struct {
				name string
				dst  *float64
			}{{"max-table", &j.MaxTable}, {"max-total", &j.MaxTotal}} {
				v, err := p.Float(m, x.name)
				if err != nil {
					return nil, err
				}
				if !(v >= 1) {
					return nil, &infer.PropertyError{Method: "jtree", Name: x.name, Msg: "must be at least 1, got " + p.String(m, x.name)}
				}
				*x.dst = v
			}
			return j, nil
		},
	})
}
