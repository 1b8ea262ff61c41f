package libdai

import (
	"bytes"
	"os"
	"testing"
)

func BenchmarkReadRelational3(b *testing.B) {
	data, err := os.ReadFile(sharedDir + "/relational_3.fg")
	if err != nil {
		b.Skipf("shared file not available: %v", err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data), "relational_3.fg"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteRelational3(b *testing.B) {
	data, err := os.ReadFile(sharedDir + "/relational_3.fg")
	if err != nil {
		b.Skipf("shared file not available: %v", err)
	}
	m, err := Read(bytes.NewReader(data), "relational_3.fg")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := Write(&bytes.Buffer{}, m); err != nil {
			b.Fatal(err)
		}
	}
}
