//go:build !race

package replay

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/internal/synthetic"
)

// TestReplayMemoryFlat replays a recording and one ten times longer through
// the quoting loop: the live heap must not grow with the length beyond what
// the results keep (a row per minute and token, a record per fill). It is
// not built with -race, whose instrumentation changes what is allocated.
func TestReplayMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 130,000 events")
	}
	dir := t.TempDir()
	small, large := filepath.Join(dir, "small.jsonl.gz"), filepath.Join(dir, "large.jsonl.gz")
	ns := synthetic.Write(t, small, memBooks(5*time.Minute))
	nl := synthetic.Write(t, large, memBooks(50*time.Minute))
	ps, rs := replayHeap(t, small, 2000)
	pl, rl := replayHeap(t, large, 2000)
	t.Logf("results kept: small %d series rows, %d fills; large %d series rows, %d fills", len(rs.Series), len(rs.Fills), len(rl.Series), len(rl.Fills))
	t.Logf("peak live heap: HeapInuse %d KiB / HeapAlloc %d KiB for %d events; %d KiB / %d KiB for %d events",
		ps.inuse>>10, ps.alloc>>10, ns, pl.inuse>>10, pl.alloc>>10, nl)
	// What the results keep: series rows, totals and fills, each well
	// under 1 KiB; the events themselves (about 1 KiB each decoded) must
	// not be kept.
	kept := uint64(len(rl.Series)+len(rl.Totals)+len(rl.Fills)) * 1024
	if pl.inuse > ps.inuse+kept+1<<20 {
		t.Errorf("live heap grew from %d KiB to %d KiB for 10x the events (the results account for %d KiB)",
			ps.inuse>>10, pl.inuse>>10, kept>>10)
	}
	if rs.Total.Fills == 0 || rl.Total.Fills <= rs.Total.Fills {
		t.Errorf("fills %d and %d: the runs did not trade", rs.Total.Fills, rl.Total.Fills)
	}
}
