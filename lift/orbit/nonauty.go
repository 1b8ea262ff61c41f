//go:build !nauty

package orbit

import (
	"context"
	"errors"
)

// NautyAvailable reports whether this binary was built with -tags nauty.
const NautyAvailable = false

func nautyAutomorphisms(context.Context, *Graph, []int32, Options) (*GraphResult, error) {
	return nil, errors.New("orbit: the nauty engine needs a build with -tags nauty (and Debian's libnauty2-dev)")
}
