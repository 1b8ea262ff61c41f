// Package shareddata locates the shared reference data (../shared/data beside
// the repository: UAI 2014 models with references, real MLN datasets, CNF
// instances) for the tests that compare against it, skips those tests by name
// when it is absent, and says so once per package even without go test -v.
//
// The directory is $LIFTED_SHARED when set (the directory that holds data/),
// else ../shared beside the module root. A package whose tests read it calls
// Main (or Run) from its TestMain and Path/Need/Skipf in its tests:
//
//	func TestMain(m *testing.M) { shareddata.Main(m) }
//
//	path := shareddata.Need(t, "uai", "Grids_11.uai") // skips, counted, when absent
//
// go test discards a passing package's output (stdout and stderr alike) unless
// -v is given, so Main writes its line to the go command's own stderr where it
// can (Linux: /proc/PPID/fd/2 of a parent named "go", when that is a terminal or
// a pipe), and to the test binary's stderr otherwise.
package shareddata

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Env names the environment variable that overrides the shared directory.
const Env = "LIFTED_SHARED"

const module = "github.com/lifted-dev/lifted"

var (
	rootOnce sync.Once
	root     string // the module root, "" when not found
	skipped  atomic.Int64
)

// Root returns the directory of the lifted module's go.mod, found by walking
// up from the working directory ("" when there is none).
func Root() string {
	rootOnce.Do(func() {
		dir, err := os.Getwd()
		if err != nil {
			return
		}
		for {
			if isModuleRoot(filepath.Join(dir, "go.mod")) {
				root = dir
				return
			}
			up := filepath.Dir(dir)
			if up == dir {
				return
			}
			dir = up
		}
	})
	return root
}

func isModuleRoot(gomod string) bool {
	f, err := os.Open(gomod)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fs := strings.Fields(sc.Text()); len(fs) == 2 && fs[0] == "module" {
			return fs[1] == module
		}
	}
	return false
}

// Dir returns the shared directory: $LIFTED_SHARED, else ../shared beside the
// module root (relative to the working directory's module).
func Dir() string {
	if d := os.Getenv(Env); d != "" {
		return d
	}
	r := Root()
	if r == "" {
		r = "."
	}
	return filepath.Join(r, "..", "shared")
}

// Path returns the path of elem under the shared data directory, Dir()/data.
func Path(elem ...string) string {
	return filepath.Join(append([]string{Dir(), "data"}, elem...)...)
}

// Available reports whether the shared data directory exists.
func Available() bool {
	fi, err := os.Stat(Path())
	return err == nil && fi.IsDir()
}

// Need returns Path(elem...), skipping t (counted for Main's report) when that
// file or directory is absent.
func Need(t testing.TB, elem ...string) string {
	t.Helper()
	p := Path(elem...)
	if _, err := os.Stat(p); err != nil {
		Skipf(t, "shared data %s not available (%v); set %s or check ../shared out beside the repository", p, err, Env)
	}
	return p
}

// Skipf skips t with the message, counting it as a test skipped for want of
// the shared data.
func Skipf(t testing.TB, format string, args ...any) {
	t.Helper()
	skipped.Add(1)
	t.Skipf(format, args...)
}

// Skipped returns the number of tests skipped through Need and Skipf so far.
func Skipped() int { return int(skipped.Load()) }

// Report is the line that says what a test binary of package pkg skipped
// for lack of the shared data (n tests), or "" when it skipped none.
// The go command shows one such line per run (announce), for the first
// package that skipped: the others skip the same way, for the same
// reason.
func Report(pkg string, n int) string {
	if n == 0 {
		return ""
	}
	tests := "tests"
	if n == 1 {
		tests = "test"
	}
	return fmt.Sprintf("lifted: %s not found: tests that compare against reference data skipped (%d %s of %s, and likewise in every other package that has them); set %s or put the shared data set beside the repository (README.md, \"Tests and data\")",
		Path(), n, tests, pkg, Env)
}

// Main runs the package's tests and, when some were skipped for want of the
// shared data, prints one line saying how many (see the package doc for where
// it goes), then exits with the tests' status.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run is Main without the exit, for a TestMain with work of its own to do
// after the tests: it runs them, prints the line, and returns their status.
func Run(m *testing.M) int {
	code := m.Run()
	if line := Report(pkgName(), Skipped()); line != "" {
		announce(line)
	}
	return code
}

// pkgName is the working directory (the package's) relative to the module root.
func pkgName() string {
	wd, err := os.Getwd()
	if r := Root(); err == nil && r != "" {
		if rel, err := filepath.Rel(r, wd); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.Base(os.Args[0])
}

// announce writes line where the user sees it, once per go command (the
// first test binary to skip writes it; a marker file named after the go
// process tells the others): into the go command's own stderr, shared
// through pidfd_getfd so that the line lands in order whether that is a
// terminal, a pipe or a file (go test discards a passing package's
// output, and without -v says nothing of its skips); where that cannot be
// had, into a terminal or pipe opened through /proc, else os.Stderr.
func announce(line string) {
	if testing.Verbose() {
		fmt.Fprintln(os.Stderr, line)
		return
	}
	ppid := os.Getppid()
	if !isGo(ppid) {
		fmt.Fprintln(os.Stderr, line)
		return
	}
	if !firstOfRun(ppid) {
		return
	}
	if f := goStderr(ppid); f != nil {
		fmt.Fprintln(f, line)
		f.Close()
		return
	}
	fmt.Fprintln(os.Stderr, line)
}

// isGo reports whether process pid is the go command.
func isGo(pid int) bool {
	comm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	return err == nil && strings.TrimSpace(string(comm)) == "go"
}

// firstOfRun reports whether this is the first test binary of the go
// command pid to announce (a marker file in the temporary directory,
// named after the process and its start time, created exclusively).
func firstOfRun(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	start := ""
	if i := strings.LastIndexByte(string(stat), ')'); i >= 0 {
		if f := strings.Fields(string(stat)[i+1:]); len(f) > 19 {
			start = f[19] // field 22: the start time
		}
	}
	name := filepath.Join(os.TempDir(), fmt.Sprintf("lifted-shareddata-%d-%s", pid, start))
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return !os.IsExist(err)
	}
	f.Close()
	return true
}
