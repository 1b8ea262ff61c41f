// Command stats counts one formula with lifted's exact counter and prints
// the count and the search's statistics on one line, in the terms sharpSAT
// reports (decisions; conflicts of the search apart from failed literals;
// failed literals found by the tests at the root and after each decision;
// cache entries and hits), for bench/sharpsat/compare.sh:
//
//	go run ./bench/sharpsat/stats FORMULA.cnf
//	# count 377969276544912 decisions 3441 conflicts 800 failed 1346 cached 3200 hits 7146
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/lifted-dev/lifted/count"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: stats FORMULA.cnf")
		os.Exit(2)
	}
	c, err := count.ReadInput(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	n, st, err := count.ExactWithOptions(context.Background(), c, count.Options{LimitHeap: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("count %v decisions %d conflicts %d failed %d cached %d hits %d\n",
		n, st.Decisions, st.Conflicts-st.FailedLiterals, st.FailedLiterals, st.CacheEntries, st.CacheHits)
}
