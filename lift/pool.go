package lift

import (
	"os"
	"runtime"
	"sync/atomic"
	"time"
)

// A workPool keeps the helper goroutines of one run of the parallel
// refinement alive between its steps. A grid of 10^7 factors takes about
// 900 rounds of colour passing, each of up to a dozen parallel phases
// (marking, signing, grouping, naming; parallel.go), most of them short:
// starting goroutines for every phase, and waking a parked thread for each,
// costs tens of microseconds per phase on an idle machine. A helper of the
// pool instead waits for the next phase by spinning on an epoch counter for
// up to poolSpin, and only then parks (a channel), so that back-to-back
// phases find it running. The caller of runTasks spins likewise before it
// parks to wait for the helpers. LIFTED_SPIN=0 in the environment turns the
// pool off (every phase then starts its goroutines, as without a pool);
// results do not depend on it.
type workPool struct {
	epoch atomic.Uint64             // bumped for every job and at close
	job   atomic.Pointer[taskState] // the current job
	quit  atomic.Bool               //
	helps []poolHelper              //
}

type poolHelper struct {
	parked atomic.Bool
	wake   chan struct{} // buffered 1: a token wakes the parked helper
}

// poolSpin is how long a waiting helper or caller spins before it parks.
const poolSpin = 100 * time.Microsecond

// poolOff reports whether LIFTED_SPIN=0 turns the pool off.
func poolOff() bool { return os.Getenv("LIFTED_SPIN") == "0" }

// newWorkPool starts workers-1 helpers; it returns nil (no pool) for one
// worker, for more workers than GOMAXPROCS (spinning helpers would then
// keep the caller from running), and when the pool is off.
func newWorkPool(workers int) *workPool {
	if workers <= 1 || workers > runtime.GOMAXPROCS(0) || poolOff() {
		return nil
	}
	p := &workPool{helps: make([]poolHelper, workers-1)}
	for i := range p.helps {
		p.helps[i].wake = make(chan struct{}, 1)
		go p.helper(&p.helps[i])
	}
	return p
}

// close stops the helpers (they exit when they next look).
func (p *workPool) close() {
	if p == nil {
		return
	}
	p.quit.Store(true)
	p.epoch.Add(1)
	p.wakeAll()
}

func (p *workPool) wakeAll() {
	for i := range p.helps {
		h := &p.helps[i]
		if h.parked.Swap(false) {
			h.wake <- struct{}{}
		}
	}
}

// submit makes st the current job and wakes parked helpers.
func (p *workPool) submit(st *taskState) {
	p.job.Store(st)
	p.epoch.Add(1)
	p.wakeAll()
}

// helper runs the jobs of the pool until it is closed.
func (p *workPool) helper(h *poolHelper) {
	seen := p.epoch.Load()
	for {
		if !p.waitEpoch(h, seen) {
			return
		}
		seen = p.epoch.Load()
		if p.quit.Load() {
			return
		}
		if st := p.job.Load(); st != nil {
			st.work()
		}
	}
}

// waitEpoch waits until the epoch differs from seen: spinning for up to
// poolSpin, then parked. It reports false when the pool is closed.
func (p *workPool) waitEpoch(h *poolHelper, seen uint64) bool {
	var deadline time.Time
	for i := 0; p.epoch.Load() == seen; i++ {
		if i&255 != 255 {
			continue
		}
		if deadline.IsZero() {
			deadline = time.Now().Add(poolSpin)
			continue
		}
		if time.Now().Before(deadline) {
			continue
		}
		// Park: announce it, then look once more (a submit between the
		// two either sees the announcement and sends a token, or is seen
		// here).
		h.parked.Store(true)
		if p.epoch.Load() != seen {
			if !h.parked.Swap(false) {
				<-h.wake // a submit took the announcement and sent a token
			}
			break
		}
		<-h.wake
		deadline = time.Time{}
		i = 0
	}
	return !p.quit.Load()
}
