package doctest

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lifted-dev/lifted/engine"
	"github.com/lifted-dev/lifted/ground"
)

// The defaults the docs state are the code's: the settings table of
// docs/cli.md against engine.Settings (which the command's --help prints),
// the default MAP method against engine.DefaultMAPMethod.
func TestDocumentedDefaults(t *testing.T) {
	cli := readDoc(t, "../../docs/cli.md")
	rows := map[string]string{} // flag name → default cell
	for _, l := range strings.Split(cli, "\n") {
		cells := strings.Split(l, " | ")
		if !strings.HasPrefix(l, "| `-") || len(cells) < 3 {
			continue
		}
		var names []string
		for _, f := range strings.Split(strings.TrimPrefix(cells[0], "| "), ", ") {
			f = strings.Trim(f, "`")
			if n, ok := strings.CutPrefix(f, "--"); ok {
				names = append(names, strings.Fields(n)[0])
			}
		}
		defs := strings.Split(cells[1], ", ")
		for i, n := range names {
			if len(defs) == len(names) {
				rows[n] = strings.Trim(defs[i], "`")
			} else {
				rows[n] = strings.Trim(cells[1], "`")
			}
		}
	}
	for _, s := range engine.Settings {
		if !s.In(engine.ModeInfer) {
			continue
		}
		got, ok := rows[s.Name]
		if !ok {
			t.Errorf("docs/cli.md: no row for --%s (default %s)", s.Name, s.DefaultText())
			continue
		}
		want := s.DefaultText()
		if d, ok := s.Default.(time.Duration); ok && d == 0 && got == "0" {
			continue
		}
		if g, err1 := strconv.ParseFloat(got, 64); err1 == nil {
			if w, err2 := strconv.ParseFloat(want, 64); err2 == nil && g == w {
				continue
			}
		}
		if got != want {
			t.Errorf("docs/cli.md: --%s default %q; the code's (engine.Settings) is %q", s.Name, got, want)
		}
	}
	lib := readDoc(t, "../../docs/library.md")
	if want := "`engine.DefaultMAPMethod` (`\"" + engine.DefaultMAPMethod + "\"`"; !strings.Contains(lib, want) {
		t.Errorf("docs/library.md does not say the default MAP method is %q (want the text %s)", engine.DefaultMAPMethod, want)
	}
	if m := readDoc(t, "../../docs/map.md"); !strings.Contains(m, "with `--method "+engine.DefaultMAPMethod+"` by default") {
		t.Errorf("docs/map.md does not name the default MAP method %s", engine.DefaultMAPMethod)
	}
	// --max-ground: 0 is sized to memory (ground.DefaultMaxGround), -1 no limit.
	if mlnDoc := readDoc(t, "../../docs/mln.md"); !strings.Contains(mlnDoc, "`0`: sized to the available memory") || ground.DefaultMaxGround() <= 0 {
		t.Errorf("docs/mln.md: --max-ground 0 is sized to the available memory (ground.DefaultMaxGround), not 'no limit'")
	}
}

func readDoc(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
