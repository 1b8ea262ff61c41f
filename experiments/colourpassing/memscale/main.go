// Command memscale measures how far a second core speeds up random reads
// from memory on this machine, the kind of work colour passing's rounds are
// made of (issue 26): -mib MiB of random int32 indices, read as -chains
// independent pointer chases per goroutine (more chains: more misses in
// flight per core), 1 and 2 goroutines alternately, -reps times; and the
// same for pure arithmetic: one dependent chain of multiply-adds (bound by
// latency, which two hardware threads of one core would also double), and
// eight independent ones (bound by the core's one multiplier: two threads
// of one core would share it, two cores would not). It prints the wall
// seconds of each run and the median speed-up of 2 goroutines over 1.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

func chase(a []int32, start, chains, steps int) int32 {
	p := make([]int32, chains)
	for j := range p {
		p[j] = int32(start + j)
	}
	for range steps {
		for j := range p {
			p[j] = a[p[j]]
		}
	}
	s := int32(0)
	for _, x := range p {
		s += x
	}
	return s
}

func spin(n int) uint64 {
	x := uint64(1)
	for range n {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

func timed(workers int, f func(k int)) float64 {
	t := time.Now()
	var wg sync.WaitGroup
	for k := range workers {
		wg.Add(1)
		go func() { defer wg.Done(); f(k) }()
	}
	wg.Wait()
	return time.Since(t).Seconds()
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s[len(s)/2]
}

var sink int64

func main() {
	mib := flag.Int("mib", 512, "MiB of memory read")
	reads := flag.Int("reads", 40_000_000, "reads per run (split over the goroutines)")
	reps := flag.Int("reps", 5, "repetitions")
	flag.Parse()
	a := make([]int32, *mib<<18)
	for i := range a {
		a[i] = int32(rand.IntN(len(a)))
	}
	for _, chains := range []int{1, 8} {
		var r []float64
		for range *reps {
			t1 := timed(1, func(k int) { sink += int64(chase(a, 0, chains, *reads/chains)) })
			t2 := timed(2, func(k int) { sink += int64(chase(a, k*chains, chains, *reads/2/chains)) })
			fmt.Printf("random reads, %d chain(s) per goroutine: 1 goroutine %.3f s, 2 goroutines %.3f s\n", chains, t1, t2)
			r = append(r, t1/t2)
		}
		fmt.Printf("  median speed-up of 2 over 1: %.2f\n", median(r))
	}
	var r []float64
	for range *reps {
		t1 := timed(1, func(int) { sink += int64(spin(400_000_000)) })
		t2 := timed(2, func(int) { sink += int64(spin(200_000_000)) })
		fmt.Printf("arithmetic: 1 goroutine %.3f s, 2 goroutines %.3f s\n", t1, t2)
		r = append(r, t1/t2)
	}
	fmt.Printf("  median speed-up of 2 over 1: %.2f\n", median(r))
	r = r[:0]
	for range *reps {
		t1 := timed(1, func(int) { sink += int64(spin8(100_000_000)) })
		t2 := timed(2, func(int) { sink += int64(spin8(50_000_000)) })
		fmt.Printf("arithmetic, 8 independent chains: 1 goroutine %.3f s, 2 goroutines %.3f s\n", t1, t2)
		r = append(r, t1/t2)
	}
	fmt.Printf("  median speed-up of 2 over 1: %.2f\n", median(r))
}

// spin8 runs eight independent multiply-add chains n steps.
func spin8(n int) uint64 {
	var x [8]uint64
	for range n {
		for j := range x {
			x[j] = x[j]*6364136223846793005 + uint64(2*j+1)
		}
	}
	return x[0] ^ x[1] ^ x[2] ^ x[3] ^ x[4] ^ x[5] ^ x[6] ^ x[7]
}
