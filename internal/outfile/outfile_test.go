package outfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStdout(t *testing.T) {
	for _, p := range []string{"", "-"} {
		var b bytes.Buffer
		if err := Write(p, &b, func(w io.Writer) error { _, err := io.WriteString(w, "x\n"); return err }); err != nil || b.String() != "x\n" {
			t.Errorf("%q: %q, %v", p, b.String(), err)
		}
	}
}

func TestFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	os.WriteFile(path, []byte("old\n"), 0o644)
	boom := errors.New("boom")
	// A failed write keeps the old file and leaves no temporary file.
	if err := Write(path, nil, func(w io.Writer) error { io.WriteString(w, "half"); return boom }); !errors.Is(err, boom) && !strings.Contains(err.Error(), "boom") {
		t.Fatalf("failed write: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old\n" {
		t.Errorf("after a failed write: %q", b)
	}
	if err := Write(path, nil, func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new\n" {
		t.Errorf("after a write: %q", b)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("files left: %v", es)
	}
}

func TestOpenChecksFirst(t *testing.T) {
	dir := t.TempDir()
	_, err := Open(dir)
	var de *DirError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "it is a directory") {
		t.Errorf("directory: %v", err)
	}
	missing := filepath.Join(dir, "no", "such", "out.txt")
	if _, err := Open(missing); err == nil || !strings.HasPrefix(err.Error(), "cannot write output "+missing+": ") {
		t.Errorf("missing directory: %v", err)
	}
	f, err := Open(filepath.Join(dir, "ok.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("Open left files: %v", es)
	}
	_ = f
}
