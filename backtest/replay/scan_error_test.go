package replay

import (
	"errors"
	"testing"

	"github.com/mmbot/mmbot/backtest/recording"
)

// failSource fails on its first read.
type failSource struct{ err error }

func (s failSource) Next() (recording.Event, error) { return recording.Event{}, s.err }

// A failed scan names what it was doing once, without a "backtest:" prefix
// of its own: mmbot backtest prefixes the command and the recording's path,
// and "mmbot backtest: recording r: backtest: scanning ..." named the
// command twice.
func TestScanMarketsErrorMessage(t *testing.T) {
	cause := &recording.LineError{Line: 7, Err: recording.ErrTruncated}
	_, err := ScanMarkets(failSource{cause})
	if err == nil {
		t.Fatal("no error")
	}
	if want := "scanning for markets: line 7: recording truncated"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if !errors.Is(err, recording.ErrTruncated) {
		t.Errorf("error %v does not wrap recording.ErrTruncated", err)
	}
}
