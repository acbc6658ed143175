package sim

import (
	"cmp"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"time"
)

// faultState draws injected faults; it has its own lock.
type faultState struct {
	mu sync.Mutex
	f  Faults
	r  *rand.Rand
}

func newFaultState(f Faults, seed uint64) *faultState {
	return &faultState{f: f, r: rand.New(rand.NewPCG(seed, 0x6661756c74))}
}

// SetFaults replaces the injected faults.
func (e *Exchange) SetFaults(f Faults) error {
	if err := f.validate(); err != nil {
		return err
	}
	e.faults.mu.Lock()
	defer e.faults.mu.Unlock()
	e.faults.f = f
	return nil
}

// Faults returns the injected faults in force.
func (e *Exchange) Faults() Faults {
	e.faults.mu.Lock()
	defer e.faults.mu.Unlock()
	return e.faults.f
}

// faultKind is what happens to one request.
type faultKind int

const (
	faultNone faultKind = iota
	faultError
	faultDB
	faultDrop
)

// draw decides one request's fault and delay.
func (fs *faultState) draw() (faultKind, time.Duration) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	f := fs.f
	var delay time.Duration
	if f.DelayRate > 0 && fs.r.Float64() < f.DelayRate {
		delay = f.Delay
		if delay == 0 {
			delay = 2 * time.Second
		}
	}
	switch {
	case f.ErrorRate > 0 && fs.r.Float64() < f.ErrorRate:
		return faultError, delay
	case f.DBFailureRate > 0 && fs.r.Float64() < f.DBFailureRate:
		return faultDB, delay
	case f.DropRate > 0 && fs.r.Float64() < f.DropRate:
		return faultDrop, delay
	}
	return faultNone, delay
}

// maintenance reports whether order endpoints are closed at now, and until
// when.
func (fs *faultState) maintenance(now time.Time) (bool, time.Time, int) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	f := fs.f
	if f.MaintenanceUntil.IsZero() || now.Before(f.MaintenanceFrom) || !now.Before(f.MaintenanceUntil) {
		return false, time.Time{}, 0
	}
	return true, f.MaintenanceUntil, cmp.Or(f.MaintenanceStatus, http.StatusServiceUnavailable)
}

// stalled reports whether a request to method and rel (the path relative to
// its area's base) is held without an answer at now.
func (fs *faultState) stalled(method, rel string, now time.Time) bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	f := fs.f
	if len(f.Stall) == 0 || now.Before(f.StallFrom) || (!f.StallUntil.IsZero() && !now.Before(f.StallUntil)) {
		return false
	}
	return slices.Contains(f.Stall, method+" "+rel)
}
