package shareddata

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

func TestMain(m *testing.M) { Main(m) }

// TestNeed reads a shared file; it is the test the outer run below sees skipped.
func TestNeed(t *testing.T) {
	p := Need(t, "uai")
	if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
		t.Fatalf("Need returned %s, which is not a directory (%v)", p, err)
	}
}

func TestPathFollowsEnv(t *testing.T) {
	t.Setenv(Env, "/some/where")
	if got, want := Path("uai", "x.uai"), "/some/where/data/uai/x.uai"; got != want {
		t.Fatalf("Path = %s, want %s", got, want)
	}
	if Available() {
		t.Fatal("Available with a directory that does not exist")
	}
}

func TestDefaultBesideRoot(t *testing.T) {
	t.Setenv(Env, "")
	r := Root()
	if r == "" {
		t.Fatal("module root not found")
	}
	if _, err := os.Stat(filepath.Join(r, "go.mod")); err != nil {
		t.Fatal(err)
	}
	if got, want := Dir(), filepath.Join(r, "..", "shared"); got != want {
		t.Fatalf("Dir = %s, want %s", got, want)
	}
}

// TestGoTestSaysSkipped runs `go test` (without -v) on this package with the
// shared directory pointed at nothing, as on a fresh clone, and checks that its
// output names the skipped test although the package passes: once with the
// output read through a pipe, once redirected to a file (as `go test ./... >
// log 2>&1`), where the line must land whole, in order, and not be
// overwritten by the go command's own lines.
func TestGoTestSaysSkipped(t *testing.T) {
	if os.Getenv("LIFTED_SHAREDDATA_INNER") != "" {
		t.Skip("inner run")
	}
	if testing.Short() {
		t.Skip("runs go test")
	}
	absent := filepath.Join(t.TempDir(), "absent")
	want := regexp.MustCompile(`(?m)^lifted: ` + regexp.QuoteMeta(filepath.Join(absent, "data")) +
		` not found: tests that compare against reference data skipped \(1 test of internal/shareddata, and likewise in every other package that has them\); set LIFTED_SHARED`)
	pass := regexp.MustCompile(`(?m)^ok\s+github.com/lifted-dev/lifted/internal/shareddata`)
	for _, toFile := range []bool{false, true} {
		cmd := exec.Command("go", "test", "-count=1", ".")
		cmd.Env = append(os.Environ(), Env+"="+absent, "LIFTED_SHAREDDATA_INNER=1")
		var out []byte
		var err error
		if toFile {
			log, ferr := os.Create(filepath.Join(t.TempDir(), "log"))
			if ferr != nil {
				t.Fatal(ferr)
			}
			cmd.Stdout, cmd.Stderr = log, log
			err = cmd.Run()
			log.Close()
			out, _ = os.ReadFile(log.Name())
		} else {
			out, err = cmd.CombinedOutput()
		}
		if err != nil {
			t.Fatalf("go test (to a file: %v): %v\n%s", toFile, err, out)
		}
		if !want.Match(out) || !pass.Match(out) {
			t.Fatalf("go test's output (to a file: %v) lacks the skip line or the pass:\n%s", toFile, out)
		}
	}
}
