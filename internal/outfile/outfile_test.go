package outfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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

// A path that is not a regular file is written in place, never replaced:
// a named pipe stays a pipe and its reader gets the output (as /dev/null
// stays a device: renaming a temporary file over it would replace it).
func TestNotRegularWrittenInPlace(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	got := make(chan string, 1)
	go func() {
		b, _ := os.ReadFile(fifo) // opens for reading; Open's check and Write open for writing
		got <- string(b)
	}()
	// Open's check opens the pipe for writing once (the reader sees an
	// end of file then), so the reader above reads the check's empty
	// output; read again for the real one.
	f, err := Open(fifo)
	if err != nil {
		t.Fatal(err)
	}
	<-got
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	if err := f.Write(nil, func(w io.Writer) error { _, err := io.WriteString(w, "out\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "out\n" {
		t.Errorf("the pipe's reader got %q", s)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v %v", fi.Mode(), err)
	}
	if fi, err := os.Stat(os.DevNull); err == nil && fi.Mode().IsRegular() {
		t.Fatalf("%s is a regular file", os.DevNull)
	}
	if err := Write(os.DevNull, nil, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode().IsRegular() {
		t.Fatalf("writing %s replaced it: %v %v", os.DevNull, fi.Mode(), err)
	}
}

// A symbolic link is followed: the file it names is replaced, the link
// stays.
func TestSymlinkFollowed(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.txt")
	link := filepath.Join(dir, "link.txt")
	os.WriteFile(target, []byte("old\n"), 0o644)
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	if err := Write(link, nil, func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced")
	}
	if b, _ := os.ReadFile(target); string(b) != "new\n" {
		t.Errorf("target %q", b)
	}
}

// As a shell's > does: the replaced file keeps its mode, owner and hard
// links; a dangling symbolic link is followed to the file it names; a
// loop and a file that may not be written are refused before the work.
func TestLikeShellRedirect(t *testing.T) {
	dir := t.TempDir()
	write := func(path, text string) error {
		return Write(path, nil, func(w io.Writer) error { _, err := io.WriteString(w, text); return err })
	}
	private := filepath.Join(dir, "private")
	if err := os.WriteFile(private, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := write(private, "new"); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(private); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v after the write, want -rw-------", fi.Mode().Perm())
	}
	if os.Geteuid() == 0 {
		owned := filepath.Join(dir, "owned")
		if err := os.WriteFile(owned, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(owned, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if err := write(owned, "new"); err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(owned)
		if st := fi.Sys().(*syscall.Stat_t); st.Uid != 65534 || st.Gid != 65534 {
			t.Errorf("owner %d:%d after the write, want 65534:65534", st.Uid, st.Gid)
		}
	}
	linked, other := filepath.Join(dir, "linked"), filepath.Join(dir, "other")
	if err := os.WriteFile(linked, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(linked, other); err != nil {
		t.Fatal(err)
	}
	if err := write(linked, "new"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(other); string(b) != "new" {
		t.Errorf("the other hard link reads %q, want the new text", b)
	}
	dangling, named := filepath.Join(dir, "dangling"), filepath.Join(dir, "named")
	if err := os.Symlink("named", dangling); err != nil {
		t.Fatal(err)
	}
	if err := write(dangling, "via link"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(dangling); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the dangling link was replaced: %v", err)
	}
	if b, _ := os.ReadFile(named); string(b) != "via link" {
		t.Errorf("the file the link names reads %q", b)
	}
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink("loop", loop); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(loop); err == nil || !strings.Contains(err.Error(), "symbolic links") {
		t.Errorf("a looping link: %v", err)
	}
	if os.Geteuid() != 0 { // root may write a read-only file, with > too
		ro := filepath.Join(dir, "ro")
		if err := os.WriteFile(ro, []byte("old"), 0o444); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(ro); err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Errorf("a read-only file: %v", err)
		}
	}
}
