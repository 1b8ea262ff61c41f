// Package wholefile writes a file whole or not at all, for the commands of
// the beam module: the core's internal/outfile (a temporary file beside
// the path, renamed over it when complete; a device or a pipe written in
// place, never replaced).
package wholefile

import (
	"io"

	"github.com/lifted-dev/lifted/internal/outfile"
)

// Write writes path through write, buffered, whole or not at all.
func Write(path string, write func(io.Writer) error) error {
	return outfile.Write(path, nil, write)
}
