package engine

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/lift"
)

// ErrShardsExist reports an output directory that already holds edge-list
// shards (a glob over it would read them too).
var ErrShardsExist = errors.New("already holds edge-list shards")

// WriteEdgeListFiles writes the edge list of lift.WriteEdgeList into the files
// dir/edges-00000.txt, … (dir is created if missing; a directory that
// already holds shards is an error wrapping ErrShardsExist). On an error
// no shard is left behind. It returns the glob of the shards.
func WriteEdgeListFiles(dir string, shards int, g *fg.Graph, ev fg.Evidence, opt lift.Options) (string, error) {
	glob := filepath.Join(dir, "edges-*.txt")
	if old, _ := filepath.Glob(glob); len(old) > 0 {
		return glob, fmt.Errorf("%s %w (%s, …): a glob would read them too; remove them first", dir, ErrShardsExist, old[0])
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return glob, err
	}
	files := make([]*os.File, shards)
	ws := make([]io.Writer, shards)
	var err error
	for i := range files {
		if files[i], err = os.Create(filepath.Join(dir, fmt.Sprintf("edges-%05d.txt", i))); err != nil {
			break
		}
		ws[i] = files[i]
	}
	if err == nil {
		err = lift.WriteEdgeList(g, ev, opt, ws)
	}
	for _, fh := range files {
		if fh != nil {
			if cerr := fh.Close(); err == nil {
				err = cerr
			}
		}
	}
	if err != nil {
		for _, fh := range files {
			if fh != nil {
				os.Remove(fh.Name())
			}
		}
	}
	return glob, err
}
