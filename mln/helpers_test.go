package mln_test

import (
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/mln"
)

// The fixtures are those of the reader's tests.
const testdata = "../format/mlnfile/testdata/"

func smokersMLN(t testing.TB) *mln.MLN {
	t.Helper()
	m, err := mlnfile.ParseFile(testdata + "smokers.mln")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustParse(t *testing.T, name, src string) *mln.MLN {
	t.Helper()
	m, err := mlnfile.Parse(name, []byte(src))
	if err != nil {
		t.Fatalf("Parse(%s): %v\nsource:\n%s", name, err, src)
	}
	return m
}
