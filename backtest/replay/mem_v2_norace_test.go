//go:build !race

package replay

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/internal/synthetic"
)

// TestReplayMemoryFlatRecordingV2 is TestReplayMemoryFlat with version 2
// recordings: the Reader holds one block, and the decoded books (which
// share chunks and unchanged sides) are not kept by the replay; also when
// read as mmbot backtest reads (Fixed levels only, in reused memory,
// prefetched).
func TestReplayMemoryFlatRecordingV2(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 130,000 events")
	}
	dir := t.TempDir()
	small, large := filepath.Join(dir, "small.mmrec"), filepath.Join(dir, "large.mmrec")
	ns := synthetic.Write(t, small, memBooks(5*time.Minute))
	nl := synthetic.Write(t, large, memBooks(50*time.Minute))
	for _, fixedOnly := range []bool{false, true} {
		t.Run(map[bool]string{false: "decimal levels", true: "fixed levels prefetched"}[fixedOnly], func(t *testing.T) {
			memFlat(t, small, large, ns, nl, fixedOnly)
		})
	}
}

// memFlat replays the small and the large recording and compares their
// peak live heaps.
func memFlat(t *testing.T, small, large string, ns, nl int, fixedOnly bool) {
	ps, rs := replayHeapAs(t, small, 2000, fixedOnly)
	pl, rl := replayHeapAs(t, large, 2000, fixedOnly)
	t.Logf("peak live heap: HeapInuse %d KiB / HeapAlloc %d KiB for %d events; %d KiB / %d KiB for %d events",
		ps.inuse>>10, ps.alloc>>10, ns, pl.inuse>>10, pl.alloc>>10, nl)
	kept := uint64(len(rl.Series)+len(rl.Totals)+len(rl.Fills)) * 1024
	// A replay that kept what it read would hold about ten times the
	// small run's heap; the slack (4 MiB) absorbs when the collector ran,
	// which moves with the machine's load (other test binaries at work).
	if pl.inuse > ps.inuse+kept+4<<20 {
		t.Errorf("live heap grew from %d KiB to %d KiB for 10x the events (the results account for %d KiB)",
			ps.inuse>>10, pl.inuse>>10, kept>>10)
	}
	if rs.Total.Fills == 0 || rl.Total.Fills <= rs.Total.Fills {
		t.Errorf("fills %d and %d: the runs did not trade", rs.Total.Fills, rl.Total.Fills)
	}
}
