package daemon

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/state"
	"github.com/mmbot/mmbot/strategy/loop"
)

// The reward journal writes what the markets earned since its last write,
// once a minute and when final, so that the journal's hours sum to the
// loop's estimate and nothing is written twice.
func TestRewardJournalWritesWhatWasEarnedOnce(t *testing.T) {
	store, err := state.Open(filepath.Join(t.TempDir(), "mmbot.db"), state.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	rj := newRewardJournal(store, zerolog.Nop())
	t0 := time.Date(2026, 3, 1, 10, 59, 30, 0, time.UTC)
	status := func(at time.Time, a, b string) *loop.Status {
		st := &loop.Status{Time: at, Markets: make([]loop.MarketStatus, 2)}
		st.Markets[0].ConditionID, st.Markets[0].Rewards.Earned = "0xa", decimal.RequireFromString(a)
		st.Markets[1].ConditionID, st.Markets[1].Rewards.Earned = "0xb", decimal.RequireFromString(b)
		return st
	}
	rj.observe(status(t0, "0.5", "0"), false)                      // written (the first)
	rj.observe(status(t0.Add(10*time.Second), "0.75", "1"), false) // too soon: not written
	rj.observe(status(t0.Add(61*time.Second), "1.25", "1"), false) // written, in the next hour
	rj.observe(status(t0.Add(70*time.Second), "1.5", "1"), true)   // final: written
	rj.observe(status(t0.Add(3*time.Minute), "1.5", "1"), true)    // nothing new
	hours, err := store.Rewards(time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	total, by, _ := state.SumRewards(hours)
	if len(hours) != 2 || !total.Equal(decimal.RequireFromString("2.5")) || !by["0xa"].Equal(decimal.RequireFromString("1.5")) || !by["0xb"].Equal(decimal.NewFromInt(1)) {
		t.Fatalf("%d hours, total %s, by market %v; want 2 hours, 2.5 (0xa 1.5, 0xb 1)", len(hours), total, by)
	}
	if first := hours[0].Markets["0xa"]; !first.Equal(decimal.RequireFromString("0.5")) {
		t.Errorf("the first hour holds %s of 0xa, want 0.5", first)
	}
}
