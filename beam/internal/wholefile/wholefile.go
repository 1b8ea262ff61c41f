// Package wholefile writes a file whole or not at all, for the commands of
// the beam module.
package wholefile

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
)

// Write writes path through write, buffered, to a temporary file beside it
// that is renamed to path on success and removed on failure.
func Write(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
