// Package outfile writes a command's output file safely: checked before
// the work (so a wrong path fails at once, not after an hour of
// inference), written after it through a temporary file in the same
// directory that is renamed over the path when complete and removed
// otherwise (so an error or a crash never leaves a half-written file, and
// an existing file is replaced only by a complete one). The path "" or
// "-" is standard output. A path that is not a regular file (/dev/null,
// /dev/stdout, a named pipe) is written directly, never replaced; a
// symbolic link is followed (a dangling one to the file it names, a loop
// refused), and the file it names is replaced. As with a shell's >, a
// file that may not be written is refused before the work, and the file
// that replaces an existing one keeps its permissions and owner (one that
// cannot be given them, or one with other hard links, is written in
// place).
package outfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// File is an output file checked by Open and written by Write.
type File struct {
	path   string // the user's path; "" for stdout
	target string // the file written: path with symbolic links resolved
	direct bool   // not a regular file (a device, a pipe): written in place
	// An existing regular target: its permissions and owner, given to
	// the file that replaces it.
	exists   bool
	mode     os.FileMode
	uid, gid int
}

// DirError is an output path that names a directory.
type DirError struct{ Path string }

func (e *DirError) Error() string {
	return fmt.Sprintf("cannot write output %s: it is a directory; name a file in it", e.Path)
}

// Open checks, before any work, that path can be written: not a directory
// (a *DirError), in a directory that exists and is writable (by creating
// and removing a temporary file there). Errors name the user's path.
func Open(path string) (*File, error) {
	if path == "" || path == "-" {
		return &File{}, nil
	}
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return nil, &DirError{path}
	case err == nil && !fi.Mode().IsRegular():
		// A device or a pipe: renaming over it would replace it.
		fh, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("cannot write output %s: %w", path, unwrapPath(err))
		}
		fh.Close()
		return &File{path: path, target: path, direct: true}, nil
	}
	// Symbolic links are followed to the file they name, existing or
	// not, as a shell's > does; a loop is refused.
	target, err := resolveLinks(path)
	if err != nil {
		return nil, fmt.Errorf("cannot write output %s: %w", path, err)
	}
	out := &File{path: path, target: target}
	if fi, err := os.Stat(target); err == nil && fi.Mode().IsRegular() {
		// What a shell's > would refuse (a read-only file, one we may not
		// write) is refused; what it keeps (the mode, the owner, other
		// hard links) is kept.
		fh, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("cannot write output %s: %w", path, unwrapPath(err))
		}
		fh.Close()
		out.exists, out.mode = true, fi.Mode().Perm()
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			out.uid, out.gid = int(st.Uid), int(st.Gid)
			if st.Nlink > 1 {
				out.direct = true // replacing it would split its hard links
			}
		}
	}
	fh, err := createTemp(target)
	if err != nil {
		return nil, fmt.Errorf("cannot write output %s: %w", path, unwrapPath(err))
	}
	if out.exists {
		// A file owned by another user (or group) that we may write
		// cannot be replaced by one of ours: written in place instead.
		if err := fh.Chown(out.uid, out.gid); err != nil {
			out.direct = true
		}
	}
	fh.Close()
	os.Remove(fh.Name())
	temps.Delete(fh.Name())
	return out, nil
}

// resolveLinks follows the symbolic links of path to the file they name,
// which need not exist (a dangling link names the file to create); a loop
// or a chain of more than 40 links is an error.
func resolveLinks(path string) (string, error) {
	p := path
	for range 40 {
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return p, nil
		}
		l, err := os.Readlink(p)
		if err != nil {
			return "", unwrapPath(err)
		}
		if !filepath.IsAbs(l) {
			l = filepath.Join(filepath.Dir(p), l)
		}
		p = l
	}
	return "", fmt.Errorf("too many levels of symbolic links (a loop?)")
}

// Write opens path (Open) and writes it with fn (File.Write).
func Write(path string, stdout io.Writer, fn func(io.Writer) error) error {
	f, err := Open(path)
	if err != nil {
		return err
	}
	return f.Write(stdout, fn)
}

// temps are the temporary files being written, for RemoveTemps.
var temps sync.Map // name → struct{}

// RemoveTemps removes every temporary file a Write has not yet renamed or
// removed: a process that must exit at once (a signal) calls it so that no
// hidden .NAME.PID.N.tmp is left beside the target.
func RemoveTemps() {
	temps.Range(func(k, _ any) bool {
		os.Remove(k.(string))
		temps.Delete(k)
		return true
	})
}

// createTemp creates a new temporary file next to path (hidden, with the
// permissions os.Create gives), registered for RemoveTemps until done.
func createTemp(path string) (*os.File, error) {
	dir, base := filepath.Split(path)
	var err error
	for i := 0; i < 100; i++ {
		name := filepath.Join(dir, fmt.Sprintf(".%s.%d.%d.tmp", base, os.Getpid(), i))
		var fh *os.File
		temps.Store(name, struct{}{})
		fh, err = os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err != nil {
			temps.Delete(name)
		}
		if !errors.Is(err, os.ErrExist) {
			return fh, err
		}
	}
	return nil, err
}

// Write writes the output with fn, buffered: to stdout, or to a temporary
// file renamed over the user's path (removed on any error).
func (o *File) Write(stdout io.Writer, fn func(io.Writer) error) error {
	if o.path == "" {
		bw := bufio.NewWriter(stdout)
		if err := fn(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	if o.direct {
		flags := os.O_WRONLY
		if o.exists {
			flags |= os.O_TRUNC // a regular file written in place, as > does
		}
		fh, err := os.OpenFile(o.target, flags, 0)
		if err != nil {
			return fmt.Errorf("cannot write output %s: %w", o.path, unwrapPath(err))
		}
		bw := bufio.NewWriter(fh)
		err = fn(bw)
		if err == nil {
			err = bw.Flush()
		}
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("cannot write output %s: %w", o.path, unwrapPath(err))
		}
		return nil
	}
	tmp, err := createTemp(o.target)
	if err != nil {
		return fmt.Errorf("cannot write output %s: %w", o.path, unwrapPath(err))
	}
	bw := bufio.NewWriter(tmp)
	err = fn(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil && o.exists {
		err = os.Chmod(tmp.Name(), o.mode)
		if err == nil {
			err = os.Chown(tmp.Name(), o.uid, o.gid)
		}
	}
	if err == nil {
		err = os.Rename(tmp.Name(), o.target)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	temps.Delete(tmp.Name())
	if err != nil {
		return fmt.Errorf("cannot write output %s: %w", o.path, unwrapPath(err))
	}
	return nil
}

// unwrapPath is the cause of an *os.PathError or *os.LinkError, whose own
// message names the temporary file rather than the user's path.
func unwrapPath(err error) error {
	var pe *os.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}
