package uai

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// gridModel returns a MARKOV file for an n×n Ising-like grid with a unary
// factor per variable and a pairwise factor per edge.
func gridModel(n int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "MARKOV\n%d\n", n*n)
	for range n * n {
		b.WriteString("2 ")
	}
	nf := n*n + 2*n*(n-1)
	fmt.Fprintf(&b, "\n%d\n", nf)
	for v := range n * n {
		fmt.Fprintf(&b, "1 %d\n", v)
	}
	for i := range n {
		for j := range n {
			v := i*n + j
			if j+1 < n {
				fmt.Fprintf(&b, "2 %d %d\n", v, v+1)
			}
			if i+1 < n {
				fmt.Fprintf(&b, "2 %d %d\n", v, v+n)
			}
		}
	}
	for v := range n * n {
		fmt.Fprintf(&b, "2\n%g %g\n", 0.1+float64(v%7)/10, 0.9)
	}
	for k := range 2 * n * (n - 1) {
		fmt.Fprintf(&b, "4\n1.2 %g\n%g 1.2\n", 0.5+float64(k%5)/100, 0.5+float64(k%5)/100)
	}
	return b.Bytes()
}

func BenchmarkReadGrid(b *testing.B) {
	data := gridModel(100) // 10,000 variables, 29,800 factors
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data), "grid.uai"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadRelational4(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(sharedDir, "relational_4.uai"))
	if err != nil {
		b.Skipf("shared file not available: %v", err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data), "relational_4.uai"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteGrid(b *testing.B) {
	m, err := Read(bytes.NewReader(gridModel(100)), "grid.uai")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := Write(&bytes.Buffer{}, m); err != nil {
			b.Fatal(err)
		}
	}
}
