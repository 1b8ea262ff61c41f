package memlimit

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for s, want := range map[string]int64{"4GB": 4e9, "512MB": 512e6, "2GiB": 2 << 30, "1.5G": 3 << 29, "1000": 1000, "64 kB": 64000} {
		if got, err := Parse(s); err != nil || got != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "GB", "4XB", "-1GB", "NaN"} {
		if _, err := Parse(s); err == nil {
			t.Errorf("Parse(%q): no error", s)
		}
	}
}

func TestCheckAndReader(t *testing.T) {
	Set(1000 * InputShare)
	defer Set(0)
	if err := Check("x", 1001*InputShare); err == nil || !strings.Contains(err.Error(), "--max-memory") {
		t.Errorf("Check over the limit: %v", err)
	}
	if err := Check("x", 999); err != nil {
		t.Errorf("Check under the limit: %v", err)
	}
	var ie *InputError
	_, err := io.ReadAll(Reader(strings.NewReader(strings.Repeat("a", 2000)), "long"))
	if !errors.As(err, &ie) || ie.Binary {
		t.Errorf("endless input: %v", err)
	}
	_, err = io.ReadAll(Reader(strings.NewReader("abc\x00def"), "bin"))
	if !errors.As(err, &ie) || !ie.Binary || ie.Offset != 3 || !strings.Contains(err.Error(), "byte 4 is NUL") {
		t.Errorf("NUL byte: %v", err)
	}
	if b, err := io.ReadAll(Reader(strings.NewReader("P(A)\n"), "ok")); err != nil || string(b) != "P(A)\n" {
		t.Errorf("text: %q, %v", b, err)
	}
}

// A budget the user sets is at least 1MiB ("1MB", 10^6 bytes, is under it:
// the message names the unit that passes).
func TestParseBudget(t *testing.T) {
	if n, err := ParseBudget("1MiB"); err != nil || n != Min {
		t.Errorf("ParseBudget(1MiB) = %d, %v", n, err)
	}
	for _, s := range []string{"1MB", "100B", "0", "lots"} {
		if _, err := ParseBudget(s); err == nil {
			t.Errorf("ParseBudget(%q) accepted", s)
		}
	}
	if _, err := ParseBudget("1MB"); err == nil || !strings.Contains(err.Error(), "want at least 1MiB") {
		t.Errorf("ParseBudget(1MB): %v", err)
	}
}

func TestRuntime(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	defer Set(0)
	Set(3 << 30)
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMEMLIMIT is set")
	}
	if got := Runtime(); got != 3<<30 || debug.SetMemoryLimit(-1) != 3<<30 {
		t.Fatalf("Runtime() = %d, runtime limit %d; want the budget %d", got, debug.SetMemoryLimit(-1), 3<<30)
	}
}

// Available keeps its reading for availableAge, then reads again.
func TestAvailableAge(t *testing.T) {
	first := Available()
	if first <= 0 {
		t.Fatalf("Available() = %d", first)
	}
	avail.Lock()
	avail.bytes, avail.at = 12345, time.Now()
	avail.Unlock()
	if got := Available(); got != 12345 {
		t.Errorf("Available() within availableAge = %d, want the kept 12345", got)
	}
	avail.Lock()
	avail.at = time.Now().Add(-availableAge)
	avail.Unlock()
	if got := Available(); got == 12345 || got <= 0 {
		t.Errorf("Available() after availableAge = %d, want a new reading", got)
	}
}

// cgroupAvailable reads the process's control group limit less its use
// (inactive page cache not counted), in v1 and v2 layouts, and finds no
// limit where none is set or the files are absent.
func TestCgroupAvailable(t *testing.T) {
	root := t.TempDir()
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(root+path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(root+path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// v1: the process's group under the memory hierarchy.
	write("/self1", "4:memory:/jobs/a\n0::/\n")
	write("/memory/jobs/a/memory.limit_in_bytes", "3000000000\n")
	write("/memory/jobs/a/memory.usage_in_bytes", "1200000000\n")
	write("/memory/jobs/a/memory.stat", "cache 500\ntotal_inactive_file 200000000\n")
	if got, want := cgroupAvailable(root+"/self1", root), int64(3000000000-1000000000); got != want {
		t.Errorf("v1: %d, want %d", got, want)
	}
	// v2: memory.max under the unified hierarchy; "max" is no limit.
	write("/self2", "0::/user/b\n")
	write("/user/b/memory.max", "2147483648\n")
	write("/user/b/memory.current", "147483648\n")
	write("/user/b/memory.stat", "anon 1\ninactive_file 47483648\n")
	if got, want := cgroupAvailable(root+"/self2", root), int64(2147483648-100000000); got != want {
		t.Errorf("v2: %d, want %d", got, want)
	}
	write("/self3", "0::/user/c\n")
	write("/user/c/memory.max", "max\n")
	write("/user/c/memory.current", "1\n")
	// A namespaced group ("/") reads the hierarchy's root; no files: none.
	write("/self4", "0::/\n")
	write("/self5", "7:cpu:/x\n")
	for _, self := range []string{"/self3", "/self4", "/self5", "/nonexistent"} {
		if got := cgroupAvailable(root+self, root); got != noLimit {
			t.Errorf("%s: %d, want no limit", self, got)
		}
	}
	// Used beyond the limit: nothing available, not a negative budget.
	write("/self6", "0::/user/d\n")
	write("/user/d/memory.max", "1000\n")
	write("/user/d/memory.current", "5000\n")
	if got := cgroupAvailable(root+"/self6", root); got != 0 {
		t.Errorf("over the limit: %d, want 0", got)
	}
}
