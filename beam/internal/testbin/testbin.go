// Package testbin builds the core's lifted command for the beam module's
// tests, which compare the pipelines with it.
package testbin

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Lifted builds the lifted command of the core module (the directory above
// this module) into a temporary directory and returns its path.
func Lifted(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	core := filepath.Join(filepath.Dir(file), "..", "..", "..")
	bin := filepath.Join(t.TempDir(), "lifted")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/lifted")
	cmd.Dir = core
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building lifted: %v\n%s", err, out)
	}
	return bin
}
