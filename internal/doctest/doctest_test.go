package doctest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lifted-dev/lifted/internal/shareddata"
)

func TestMain(m *testing.M) { shareddata.Main(m) }

// example is one command shown in the documentation with the output shown for it.
type example struct {
	file   string   // the markdown file
	line   int      // the command's line
	setup  []string // cd and assignment lines before it in its block
	cmd    string   // the command, `lifted …`
	output []string // the output shown (nil: none shown)
	shown  bool     // output was shown
}

var (
	shRun     = regexp.MustCompile(`^(go run \./cmd/lifted|lifted) `)
	setupLine = regexp.MustCompile(`^(cd \S+|[A-Z_][A-Z0-9_]*=\S+)\s*(#.*)?$`)
)

// parse returns the examples of a markdown file.
func parse(file string, text string) []example {
	lines := strings.Split(text, "\n")
	var out []example
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if !strings.HasPrefix(l, "```") {
			continue
		}
		lang := strings.TrimSpace(strings.TrimPrefix(l, "```"))
		skip := false
		for j := i - 1; j >= 0; j-- {
			if t := strings.TrimSpace(lines[j]); t != "" {
				skip = strings.HasPrefix(t, "<!-- no-test")
				break
			}
		}
		end := i + 1
		for end < len(lines) && !strings.HasPrefix(lines[end], "```") {
			end++
		}
		body := lines[i+1 : min(end, len(lines))]
		start := i + 1
		i = end
		if skip {
			continue
		}
		var ex []example
		if lang == "sh" {
			ex = parseSh(file, start, body)
			// A plain block right after: the output of the block's last command.
			j := end + 1
			for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
				j++
			}
			if len(ex) > 0 && j < len(lines) && (lines[j] == "```" || lines[j] == "```text") && !ex[len(ex)-1].shown {
				k := j + 1
				for k < len(lines) && !strings.HasPrefix(lines[k], "```") {
					k++
				}
				ex[len(ex)-1].output = lines[j+1 : k]
				ex[len(ex)-1].shown = true
				i = k
			}
		} else {
			ex = parseSession(file, start, body)
		}
		out = append(out, ex...)
	}
	return out
}

func parseSh(file string, start int, body []string) []example {
	var out []example
	var setup []string
	for k := 0; k < len(body); k++ {
		l := body[k]
		switch {
		case setupLine.MatchString(l):
			setup = append(setup, l)
		case shRun.MatchString(l):
			e := example{file: file, line: start + k + 1, setup: append([]string(nil), setup...)}
			cmd := l
			for strings.HasSuffix(strings.TrimRight(cmd, " "), "\\") && k+1 < len(body) {
				k++
				cmd = strings.TrimRight(strings.TrimSuffix(strings.TrimRight(cmd, " "), "\\"), " ") + " " + strings.TrimSpace(body[k])
			}
			e.cmd = cmd
			for k+1 < len(body) && (strings.HasPrefix(body[k+1], "#   ") || body[k+1] == "#") {
				k++
				e.output = append(e.output, strings.TrimPrefix(strings.TrimPrefix(body[k], "#"), "   "))
				e.shown = true
			}
			out = append(out, e)
		}
	}
	return out
}

func parseSession(file string, start int, body []string) []example {
	var out []example
	for k := 0; k < len(body); k++ {
		if !strings.HasPrefix(body[k], "$ lifted ") {
			continue
		}
		e := example{file: file, line: start + k + 1, cmd: strings.TrimPrefix(body[k], "$ "), shown: true}
		for k+1 < len(body) && !strings.HasPrefix(body[k+1], "$ ") {
			k++
			e.output = append(e.output, body[k])
		}
		out = append(out, e)
	}
	return out
}

var timeRe = []*regexp.Regexp{
	regexp.MustCompile(`\b\d+(\.\d+)?(e[-+]?\d+)? ?(s|ms|µs|ns)\b`),
	regexp.MustCompile(`("[a-z_]*seconds"): ?-?[0-9.e+-]+`),
	regexp.MustCompile(`\bseconds = [0-9.e+-]+`),
}

// normalise replaces times by a placeholder.
func normalise(s string) string {
	s = timeRe[0].ReplaceAllString(s, "⟨time⟩")
	s = timeRe[1].ReplaceAllString(s, "$1:⟨time⟩")
	return timeRe[2].ReplaceAllString(s, "seconds = ⟨time⟩")
}

// lineMatch reports whether the actual line matches the shown one, where `…`
// stands for any text.
func lineMatch(shown, actual string) bool {
	shown, actual = normalise(strings.TrimRight(shown, " ")), normalise(strings.TrimRight(actual, " "))
	parts := strings.Split(shown, "…")
	if len(parts) == 1 {
		return shown == actual
	}
	if !strings.HasPrefix(actual, parts[0]) {
		return false
	}
	actual = actual[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(actual, p)
		if i < 0 {
			return false
		}
		actual = actual[i+len(p):]
	}
	return strings.HasSuffix(actual, last)
}

// match reports whether the actual lines match the shown ones, a line `…`
// standing for any number of lines.
func match(shown, actual []string) bool {
	if len(shown) == 0 {
		return len(actual) == 0
	}
	if strings.TrimSpace(shown[0]) == "…" {
		for k := 0; k <= len(actual); k++ {
			if match(shown[1:], actual[k:]) {
				return true
			}
		}
		return false
	}
	return len(actual) > 0 && lineMatch(shown[0], actual[0]) && match(shown[1:], actual[1:])
}

func trimLines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func docs(t *testing.T, root string) []string {
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join(root, "README.md")}, files...)
}

// workspace builds the binary and a directory to run the examples in: a copy
// of examples/, links to the repository's other top-level entries, and
// ../shared beside it.
func workspace(t *testing.T, root string) (dir, bin string) {
	tmp := t.TempDir()
	bin = filepath.Join(tmp, "bin", "lifted")
	build := exec.Command("go", "build", "-o", bin, "./cmd/lifted")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir = filepath.Join(tmp, "repo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(dir, "examples"), os.DirFS(filepath.Join(root, "examples"))); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "examples" || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	if shareddata.Available() {
		shared, err := filepath.Abs(shareddata.Dir())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(shared, filepath.Join(tmp, "shared")); err != nil {
			t.Fatal(err)
		}
	}
	return dir, bin
}

// TestShownCommands runs every command shown in README.md and docs/*.md.
func TestShownCommands(t *testing.T) {
	root := shareddata.Root()
	if root == "" {
		t.Fatal("module root not found")
	}
	var all []example
	for _, f := range docs(t, root) {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		all = append(all, parse(rel, string(text))...)
	}
	if len(all) < 20 {
		t.Fatalf("only %d commands found in the documentation", len(all))
	}
	dir, bin := workspace(t, root)
	shown := 0
	for _, e := range all {
		if e.shown {
			shown++
		}
		name := fmt.Sprintf("%s:%d", e.file, e.line)
		t.Run(name, func(t *testing.T) {
			script := strings.Join(append(e.setup, e.cmd), "\n")
			if strings.Contains(script, "../shared") && !shareddata.Available() {
				shareddata.Skipf(t, "%s: %s needs ../shared, which is absent", name, e.cmd)
			}
			// exec: the shell becomes the command, so the timeout ends it.
			cmdline := strings.Join(append(e.setup, "exec "+strings.Replace(e.cmd, "go run ./cmd/lifted ", "lifted ", 1)), "\n")
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c := exec.CommandContext(ctx, "sh", "-c", cmdline)
			c.WaitDelay = time.Second
			c.Dir = dir
			c.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1")
			var buf bytes.Buffer
			c.Stdout, c.Stderr = &buf, &buf
			err := c.Run()
			got := buf.String()
			if ctx.Err() != nil {
				t.Fatalf("%s: %s: still running after 30 s (mark the block <!-- no-test --> if it is meant to be long)", name, e.cmd)
			}
			if !e.shown {
				if err != nil {
					t.Fatalf("%s: %s: %v (no output is shown, so it must succeed):\n%s", name, e.cmd, err, got)
				}
				return
			}
			if !match(e.output, trimLines(got)) {
				t.Errorf("%s: %s\nshown:\n%s\nprinted:\n%s", name, e.cmd, strings.Join(e.output, "\n"), got)
			}
		})
	}
	t.Logf("%d commands, %d with output shown", len(all), shown)
	if shown < 15 {
		t.Errorf("only %d commands show their output", shown)
	}
}

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		shown, actual string
		want          bool
	}{
		{"a\nb", "a\nb", true},
		{"a\nb", "a\nc", false},
		{"a\n…\nd", "a\nb\nc\nd", true},
		{"a\n…\nd", "a\nd", true},
		{"a\n…", "a", true},
		{"a\n…\nd", "a\nb\nc", false},
		{"x 1 … y", "x 1 2 3 y", true},
		{"x 1 … y", "x 2 3 y", false},
		{`{"a":1,…}`, `{"a":1,"b":2}`, true},
		{"done; 0.331 s", "done; 12.5 s", true},
		{"done; 0.331 s", "done; 12.5 ms", true},
		{"done; 0.331 s", "done; 12 iterations", false},
		{`{"seconds":0.1,"x":1}`, `{"seconds":3e-05,"x":1}`, true},
		{"a", "a\nb", false},
		{"seconds = 0.049", "seconds = 0.000", true},
	} {
		if got := match(trimLines(c.shown), trimLines(c.actual)); got != c.want {
			t.Errorf("match(%q, %q) = %v, want %v", c.shown, c.actual, got, c.want)
		}
	}
}

func TestParse(t *testing.T) {
	md := "x\n```sh\ncd examples/mln\nD=../x\nlifted a -q 'P(x)'   # comment\n#   out 1\n#\n#   out 2\nlifted b \\\n    --c\n```\n\n```\nB out\n```\n" +
		"<!-- no-test -->\n```sh\nlifted skipped\n```\n```\n$ lifted s\nline\n$ other\n```\n"
	ex := parse("m.md", md)
	if len(ex) != 3 {
		t.Fatalf("%d examples: %+v", len(ex), ex)
	}
	if ex[0].cmd != "lifted a -q 'P(x)'   # comment" || strings.Join(ex[0].output, "|") != "out 1||out 2" || len(ex[0].setup) != 2 || ex[0].line != 5 {
		t.Errorf("first: %+v", ex[0])
	}
	if ex[1].cmd != "lifted b --c" || strings.Join(ex[1].output, "|") != "B out" {
		t.Errorf("second: %+v", ex[1])
	}
	if ex[2].cmd != "lifted s" || strings.Join(ex[2].output, "|") != "line" {
		t.Errorf("third: %+v", ex[2])
	}
}
