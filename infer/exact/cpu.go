package exact

import "time"

// processStart is when the package was loaded (processCPU's fallback).
var processStart = time.Now()
