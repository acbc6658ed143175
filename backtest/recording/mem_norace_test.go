//go:build !race

package recording_test

import (
	"path/filepath"
	"testing"

	"github.com/mmbot/mmbot/backtest/internal/synthetic"
)

// TestRecordingV2ReaderMemoryFlat is TestReaderMemoryFlat for version 2: the live
// heap while reading does not grow with the recording's length. It is not
// built with -race, whose instrumentation changes what is allocated (and
// takes 25 s over these 550,000 events).
func TestRecordingV2ReaderMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 550,000 events")
	}
	dir := t.TempDir()
	small, large := filepath.Join(dir, "small.mmrec"), filepath.Join(dir, "large.mmrec")
	synthetic.WriteSimple(t, small, 50_000)
	synthetic.WriteSimple(t, large, 500_000)
	ps, ns := peakHeap(t, small, 5000)
	pl, nl := peakHeap(t, large, 5000)
	if ns != 50_000 || nl != 500_000 {
		t.Fatalf("read %d and %d events", ns, nl)
	}
	t.Logf("peak live heap: %d KiB for 50k events, %d KiB for 500k", ps>>10, pl>>10)
	if pl > ps+1<<20 {
		t.Errorf("live heap grew from %d KiB to %d KiB with a 10x longer recording", ps>>10, pl>>10)
	}
}
