// Package memlimit is the process's memory budget (the command's
// --max-memory): size estimates made before allocating are checked
// against it, and text inputs are read through it (no more bytes than a
// share of it, no binary data), so that a declared size, a garbage file or
// an endless input is refused at once with the size and the flag that
// raises the limit, not after the machine has run out of memory.
package memlimit

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Share is the part of the available memory that the default budget
// takes; fallback is the memory assumed where /proc/meminfo cannot be
// read.
const (
	Share    = 0.6
	fallback = 8 << 30
	// InputShare: a text input may be at most Limit()/InputShare bytes
	// (its parse takes several times its size).
	InputShare = 8
)

var limit atomic.Int64 // 0: the default

// Set sets the budget in bytes (0: the default, a share of the available
// memory). It applies to the whole process.
func Set(bytes int64) { limit.Store(bytes) }

// Swap is Set that returns the budget set before (0: the default), for a
// caller that puts it back.
func Swap(bytes int64) int64 { return limit.Swap(bytes) }

// Limit is the budget in bytes: Set's, else Share of MemAvailable.
func Limit() int64 {
	if n := limit.Load(); n > 0 {
		return n
	}
	return int64(float64(Available()) * Share)
}

// Available is the memory this process may still use: MemAvailable from
// /proc/meminfo (8 GiB where it cannot be read), or less where a limit of
// the process's own is lower — its control group's memory limit less what
// the group uses (cgroup v2 memory.max, v1 memory.limit_in_bytes; page
// cache that can be dropped not counted as used), or half its address
// space limit (ulimit -v, RLIMIT_AS: the Go runtime reserves address space
// well beyond its heap). It is read at most once a second: a short run asks several times at
// start (the runtime limit, the input's size, the model's), and each read
// costs an open, the kernel's accounting and a close.
func Available() int64 {
	avail.Lock()
	defer avail.Unlock()
	if now := time.Now(); avail.bytes == 0 || now.Sub(avail.at) >= availableAge {
		avail.bytes, avail.at = min(readAvailable(), cgroupAvailable("/proc/self/cgroup", "/sys/fs/cgroup"), addressSpaceAvailable()), now
	}
	return avail.bytes
}

// availableAge is how long Available's last reading is kept.
const availableAge = time.Second

var avail struct {
	sync.Mutex
	at    time.Time
	bytes int64
}

// readAvailable reads MemAvailable from /proc/meminfo (8 GiB where it
// cannot be read).
func readAvailable() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return fallback
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err == nil && kb > 0 {
				return kb << 10
			}
		}
	}
	return fallback
}

// noLimit is what the limits below read as "none": cgroup v1 writes about
// 2^63 for no limit.
const noLimit = int64(1) << 60

// cgroupAvailable is the memory limit of the process's control group
// (selfCgroup is /proc/self/cgroup, under the hierarchy mounted at root)
// less what the group uses, not counting its inactive page cache; or
// noLimit where there is none or it cannot be read.
func cgroupAvailable(selfCgroup, root string) int64 {
	b, err := os.ReadFile(selfCgroup)
	if err != nil {
		return noLimit
	}
	best := noLimit
	for _, line := range strings.Split(string(b), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var dirs []string
		var max, cur, inactive string
		switch {
		case parts[0] == "0" && parts[1] == "": // v2, the unified hierarchy
			dirs = []string{root + parts[2], root}
			max, cur, inactive = "memory.max", "memory.current", "inactive_file"
		case slices.Contains(strings.Split(parts[1], ","), "memory"): // v1
			dirs = []string{root + "/memory" + parts[2], root + "/memory"}
			max, cur, inactive = "memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file"
		default:
			continue
		}
		for _, d := range dirs {
			limit, ok := readBytes(d + "/" + max)
			if !ok {
				continue // not this directory (a cgroup namespace shows "/")
			}
			used, _ := readBytes(d + "/" + cur)
			used -= statField(d+"/memory.stat", inactive)
			if limit < noLimit {
				best = min(best, max0(limit-max0(used)))
			}
			break
		}
	}
	return best
}

// readBytes reads a cgroup file holding a number of bytes ("max": noLimit).
func readBytes(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return noLimit, true
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// statField is the value of a field of a cgroup's memory.stat (0 where
// absent).
func statField(path, field string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok && k == field {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

func max0(x int64) int64 { return max(x, 0) }

// addressSpaceAvailable is half the process's address space limit
// (RLIMIT_AS), or noLimit where there is none.
func addressSpaceAvailable() int64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil || r.Cur >= uint64(noLimit) {
		return noLimit
	}
	return int64(r.Cur / 2)
}

// Runtime sets the Go runtime's soft memory limit
// (runtime/debug.SetMemoryLimit) to the budget, unless the GOMEMLIMIT
// environment variable sets one: the collector then works harder as the
// heap nears the budget, so a run whose live heap fits the budget (what
// the size checks predict) stays under it, instead of growing to twice
// its live heap between collections. It returns the limit in force.
func Runtime() int64 {
	if os.Getenv("GOMEMLIMIT") != "" {
		return debug.SetMemoryLimit(-1)
	}
	l := Limit()
	debug.SetMemoryLimit(l)
	return l
}

// Error is a size estimate over the budget.
type Error struct {
	What        string  // what would need it: "a factor graph of 10000000 variables"
	Need, Limit float64 // bytes
}

// Error returns the message of the Error.
func (e *Error) Error() string {
	return fmt.Sprintf("%s would need about %s of memory, more than the limit of %s (--max-memory; by default %.0f%% of the available memory)",
		e.What, Bytes(e.Need), Bytes(e.Limit), Share*100)
}

// Check is an *Error where need bytes exceed the budget, else nil.
func Check(what string, need float64) error {
	if l := float64(Limit()); need > l {
		return &Error{What: what, Need: need, Limit: l}
	}
	return nil
}

// Bytes prints a size in bytes with a binary unit: 512 B, 3.2 MiB, 14.6
// GiB (the one printer of sizes: jtree's plans use it too).
func Bytes(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", b)
	}
	if b >= 1e4 {
		return fmt.Sprintf("%.3g %s", b, units[i])
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
}

// InputError is a text input refused while reading: binary data, or more
// bytes than the input limit.
type InputError struct {
	Name   string
	Offset int64 // the NUL byte's offset, or the limit
	Binary bool
}

// Error returns the message of the InputError.
func (e *InputError) Error() string {
	if e.Binary {
		return fmt.Sprintf("%s: byte %d is NUL: binary data, not a text model or evidence file", e.Name, e.Offset+1)
	}
	return fmt.Sprintf("%s: more than %s: larger than a text input may be (1/%d of the memory limit; raise --max-memory to read it)", e.Name, Bytes(float64(e.Offset)), InputShare)
}

// InputLimit is the most bytes a text input may have.
func InputLimit() int64 { return Limit() / InputShare }

// Reader reads r (named name in errors) as a text input: an *InputError
// at the first NUL byte, or once more than InputLimit bytes have come (an
// endless input such as /dev/zero or a pipe that never closes ends there).
func Reader(r io.Reader, name string) io.Reader {
	return &reader{r: r, name: name, left: InputLimit()}
}

type reader struct {
	r    io.Reader
	name string
	off  int64
	left int64
}

func (r *reader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, &InputError{Name: r.name, Offset: InputLimit()}
	}
	if int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n, err := r.r.Read(p)
	if i := bytes.IndexByte(p[:n], 0); i >= 0 {
		return 0, &InputError{Name: r.name, Offset: r.off + int64(i), Binary: true}
	}
	r.off += int64(n)
	r.left -= int64(n)
	return n, err
}

// ReadFile reads the text input at path whole through Reader, refusing a
// regular file larger than InputLimit before reading it.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > InputLimit() {
		return nil, &InputError{Name: path, Offset: InputLimit()}
	}
	return io.ReadAll(Reader(f, path))
}

// Min is the smallest budget a user may set: under it not even a small
// model's input fits (a text input may have Min/InputShare bytes).
const Min = 1 << 20

// ParseBudget reads a budget the user sets (--max-memory, the Python
// library's max_memory): Parse's size, at least Min.
func ParseBudget(s string) (int64, error) {
	n, err := Parse(s)
	if err != nil {
		return 0, err
	}
	if n < Min {
		return 0, fmt.Errorf("want at least 1MiB, got %q", s)
	}
	return n, nil
}

// Parse reads a size: a number of bytes, or a number with a unit (kB, MB,
// GB, TB: powers of 1000; KiB, MiB, GiB, TiB: of 1024; K, M, G, T alone
// are the binary ones, as ulimit and the Go runtime's GOMEMLIMIT read
// them).
func Parse(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := len(t)
	for i > 0 && (t[i-1] < '0' || t[i-1] > '9') && t[i-1] != '.' {
		i--
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	v, err := strconv.ParseFloat(num, 64)
	mult := map[string]float64{"": 1, "b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
		"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}[unit]
	if err != nil || mult == 0 || v < 0 || v*mult > 1<<62 || v != v {
		return 0, fmt.Errorf("want a size such as 4GB, 512MB or 2GiB, got %q", s)
	}
	return int64(v * mult), nil
}
