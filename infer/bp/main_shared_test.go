package bp_test

import (
	"testing"

	"github.com/lifted-dev/lifted/internal/shareddata"
)

// TestMain says, in one line, how many tests were skipped for want of
// ../shared/data (internal/shareddata).
func TestMain(m *testing.M) { shareddata.Main(m) }
