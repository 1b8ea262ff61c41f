// Package outfile writes a command's output file safely: checked before
// the work (so a wrong path fails at once, not after an hour of
// inference), written after it through a temporary file in the same
// directory that is renamed over the path when complete and removed
// otherwise (so an error or a crash never leaves a half-written file, and
// an existing file is replaced only by a complete one). The path "" or
// "-" is standard output. A path that is not a regular file (/dev/null,
// /dev/stdout, a named pipe) is written directly, never replaced; a
// symbolic link is followed, and the file it names is replaced.
package outfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// File is an output file checked by Open and written by Write.
type File struct {
	path   string // the user's path; "" for stdout
	target string // the file written: path with symbolic links resolved
	direct bool   // not a regular file (a device, a pipe): written in place
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
	target := path
	if t, err := filepath.EvalSymlinks(path); err == nil {
		target = t
	}
	fh, err := createTemp(target)
	if err != nil {
		return nil, fmt.Errorf("cannot write output %s: %w", path, unwrapPath(err))
	}
	fh.Close()
	os.Remove(fh.Name())
	temps.Delete(fh.Name())
	return &File{path: path, target: target}, nil
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
		fh, err := os.OpenFile(o.path, os.O_WRONLY, 0)
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
