// Command floor measures the memory floor under colour passing's growth on
// n×n grids without evidence (issue 26: CPU ∝ N^1.0 up to 10^7 factors).
//
// On such a grid the variables that change colour in round k (take a new
// class id; the largest part of a split class keeps its id) are those at
// distance k from a side, two columns and two rows: variable (x, y) learns
// its distance to the nearer left or right side in one round and to the
// nearer top or bottom side in another (its class is split off the band of
// variables farther from that side). Every implementation
// that keeps the graph's numbering must, in round k, read those variables'
// factors (and the factors' variables' colours) and write their colours.
// The floor kernel does exactly that and nothing else (no hashing, sorting
// or grouping), over the edges packed as lift packs them (one word per
// edge), for ⌈n/2⌉ rounds. The program runs it and lift.ColourPassing on
// the same graph, numbered row by row and in -tile×-tile tiles, one after
// the other in every repetition (in reverse order every other one), and
// prints the CPU seconds (medians of -reps) and the exponent of each in
// the number of nodes N (least squares of log CPU on log N).
//
// With -real=false only the floor kernels run; with -huge their arrays are
// advised huge pages (what page walks add to the growth).
//
// If the floor grows as fast as colour passing, what stands between colour
// passing and N^1.0 is the memory system reading columns of a row-major
// grid, not colour passing's own work.
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/internal/benchstat"
	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/lift"
)

// huge, with -huge, advises the kernel to back the arrays the floor kernel
// reads with huge pages (madvise MADV_HUGEPAGE before first touch).
var huge bool

func advise[T any](a []T) []T {
	if huge && len(a) > 0 {
		const madvHugepage = 14
		size := uintptr(len(a)) * unsafe.Sizeof(a[0])
		lo := (uintptr(unsafe.Pointer(&a[0])) + 4095) &^ 4095
		hi := (uintptr(unsafe.Pointer(&a[0])) + size) &^ 4095
		if hi > lo {
			syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, madvHugepage)
		}
	}
	return a
}

// packed is the graph's edges as lift's colour passing reads them.
type packed struct {
	fStart, vStart []int64
	fAdj, vAdj     []uint64 // key<<32 | variable; factor<<32 | key
}

func pack(g *fg.Graph) *packed {
	p := &packed{fStart: advise(make([]int64, len(g.FactorStart))), vStart: advise(make([]int64, len(g.VarStart))),
		fAdj: advise(make([]uint64, g.NumEdges())), vAdj: advise(make([]uint64, g.NumEdges()))}
	copy(p.fStart, g.FactorStart)
	copy(p.vStart, g.VarStart)
	ef := make([]int32, g.NumEdges())
	for f := range g.NumFactors() {
		for e := g.FactorStart[f]; e < g.FactorStart[f+1]; e++ {
			ef[e] = int32(f)
			p.fAdj[e] = uint64(e-g.FactorStart[f])<<32 | uint64(uint32(g.EdgeVar[e]))
		}
	}
	for k, e := range g.VarEdges {
		p.vAdj[k] = uint64(uint32(ef[e]))<<32 | uint64(e-g.FactorStart[ef[e]])
	}
	return p
}

// lineVars appends the variables at distance k from a side of the n×n
// grid numbered by id, in the order colour passing finds them: row k, the
// columns k and n-1-k row by row, then row n-1-k (the four lines cross, so
// their four crossings come twice).
func lineVars(line []int32, id []int32, n, k int) []int32 {
	line = append(line, id[k*n:k*n+n]...)
	for y := range n {
		line = append(line, id[y*n+k])
		if n-1-k != k {
			line = append(line, id[y*n+n-1-k])
		}
	}
	if n-1-k != k {
		line = append(line, id[(n-1-k)*n:(n-k)*n]...)
	}
	return line
}

// floor runs the floor kernel. In round k the variables at distance k from
// a side change colour; the factors next to them read their variables'
// colours and take a new colour; the variables next to those factors (at
// distance k-1, k and k+1) read their factors' colours and take a new
// colour: the neighbours of every changed node are looked at, which is the
// least any colour refinement must do. It returns the node visits.
//
// With seq set, every line is replaced by a run of as many consecutive
// variables (the next run each round, wrapping around): the same visits
// and reads of neighbours, in the order of the numbering.
func floor(p *packed, id []int32, n int, seq bool) int {
	nv, nf := len(p.vStart)-1, len(p.fStart)-1
	vc, fc := advise(make([]int32, nv)), advise(make([]int32, nf))
	var line, near []int32
	visits := 0
	last := (n - 1) / 2
	for k := 0; k <= last; k++ {
		line = lineVars(line[:0], id, n, k)
		if seq {
			consecutive(line, k, nv)
		}
		for _, v := range line {
			for _, w := range p.vAdj[p.vStart[v]:p.vStart[v+1]] {
				f := w >> 32
				h := uint32(fc[f])
				for _, u := range p.fAdj[p.fStart[f]:p.fStart[f+1]] {
					h = h*31 + uint32(vc[uint32(u)]) + uint32(u>>32)
				}
				fc[f] = int32(h)
				visits++
			}
		}
		near = near[:0]
		for j := max(0, k-1); j <= min(last, k+1); j++ {
			near = lineVars(near, id, n, j)
		}
		if seq {
			consecutive(near, k, nv)
		}
		for _, v := range near {
			h := uint32(vc[v])
			for _, w := range p.vAdj[p.vStart[v]:p.vStart[v+1]] {
				h = h*31 + uint32(fc[w>>32]) + uint32(w)
			}
			vc[v] = int32(h)
			visits++
		}
	}
	return visits
}

// consecutive overwrites line with a run of len(line) consecutive
// variables, the k-th such run of the numbering (wrapping around).
func consecutive(line []int32, k, nv int) {
	start := k * len(line)
	for i := range line {
		line[i] = int32((start + i) % nv)
	}
}

func main() {
	sizes := flag.String("sizes", "100,316,577,1000,1826", "grid sides, comma-separated")
	reps := flag.Int("reps", 3, "repetitions per size")
	tile := flag.Int("tile", 8, "tile side of the second numbering")
	flag.BoolVar(&huge, "huge", false, "advise huge pages for the floor kernel's arrays (Linux)")
	withCP := flag.Bool("real", true, "also run colour passing (false: the floor kernels alone)")
	flag.Parse()
	type series struct {
		name string
		logN []float64
		logT []float64
	}
	names := []string{"colour passing, row by row", "floor, row by row",
		fmt.Sprintf("colour passing, %d×%d tiles", *tile, *tile), fmt.Sprintf("floor, %d×%d tiles", *tile, *tile),
		"floor, consecutive runs"}
	all := make([]series, len(names))
	for i := range all {
		all[i].name = names[i]
	}
	fmt.Printf("GOMAXPROCS %d, %d repetitions, CPU seconds (medians)\n\n", runtime.GOMAXPROCS(0), *reps)
	fmt.Println("| grid | N | " + strings.Join(names, " | ") + " | floor visits / N |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, f := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(f)
		if err != nil || n < 2 {
			fmt.Fprintln(os.Stderr, "bad size", f)
			os.Exit(2)
		}
		var gs [2]*fg.Graph
		var ids [2][]int32
		var ps [2]*packed
		for l, t := range []int{n, *tile} {
			gs[l], ids[l] = gen.TiledSquareGrid(rand.New(rand.NewPCG(1, 1)), n, t)
			ps[l] = pack(gs[l])
		}
		N := gs[0].NumVars() + gs[0].NumFactors()
		times := make([][]float64, len(names))
		visits := 0
		for r := range *reps {
			order := []int{0, 1, 2, 3, 4}
			if r%2 == 1 {
				order = []int{4, 3, 2, 1, 0}
			}
			for _, c := range order {
				l := min(1, c/2)
				if c%2 == 0 && c < 4 && !*withCP {
					times[c] = append(times[c], math.NaN())
					continue
				}
				runtime.GC()
				t0 := benchstat.CPUSeconds()
				if c == 4 {
					visits = floor(ps[0], ids[0], n, true)
				} else if c%2 == 0 {
					if _, err := (lift.ColourPassing{}).Refine(context.Background(), gs[l], nil, lift.Options{}); err != nil {
						fmt.Fprintln(os.Stderr, err)
						os.Exit(1)
					}
				} else {
					visits = floor(ps[l], ids[l], n, false)
				}
				times[c] = append(times[c], benchstat.CPUSeconds()-t0)
			}
		}
		row := fmt.Sprintf("| %d² | %d |", n, N)
		for c := range names {
			m := benchstat.Median(times[c])
			if math.IsNaN(m) {
				row += " — |"
			} else {
				row += fmt.Sprintf(" %.4f |", m)
			}
			all[c].logN = append(all[c].logN, math.Log(float64(N)))
			all[c].logT = append(all[c].logT, math.Log(m))
		}
		fmt.Printf("%s %.2f |\n", row, float64(visits)/float64(N))
	}
	fmt.Println()
	for _, s := range all {
		if math.IsNaN(s.logT[0]) {
			continue
		}
		fmt.Printf("%-32s CPU ∝ N^%.2f\n", s.name, benchstat.Slope(s.logN, s.logT))
	}
}
