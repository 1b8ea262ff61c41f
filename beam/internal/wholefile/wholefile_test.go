package wholefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// A successful write leaves the file; a failed one leaves nothing, not
// even the temporary file, and keeps an older file as it was.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	if err := Write(p, func(w io.Writer) error { _, err := fmt.Fprint(w, "one"); return err }); err != nil {
		t.Fatal(err)
	}
	bad := errors.New("bad")
	if err := Write(p, func(w io.Writer) error { fmt.Fprint(w, "two"); return bad }); !errors.Is(err, bad) {
		t.Fatalf("error %v, want %v", err, bad)
	}
	b, err := os.ReadFile(p)
	if err != nil || string(b) != "one" {
		t.Fatalf("file %q, %v; want the first write", b, err)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Fatalf("%d files left, want 1", len(es))
	}
}
