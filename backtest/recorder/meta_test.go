package recorder

import (
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/recording"
)

// A market's matching delay, neg-risk flag, question and slug go into the
// metas written at the start, for each of its tokens.
func TestRecorderWritesDelayAndNames(t *testing.T) {
	r, _, sink, clk := newRecSetup(t, func(c *Config) {
		m := &c.Markets[0]
		m.Delay, m.NegRisk, m.Question, m.Slug = 3*time.Second, true, "Will it rain?", "will-it-rain"
	})
	if err := runPolls(t, r, clk, 1, nil); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range sink.events {
		if e.Kind != recording.KindMeta || e.Meta.Market != r.cfg.Markets[0].ConditionID || e.Meta.MinOrderSize.IsZero() {
			continue
		}
		n++
		if m := e.Meta; m.SecondsDelay != 3 || !m.NegRisk || m.Question != "Will it rain?" || m.Slug != "will-it-rain" {
			t.Errorf("start meta of %s: %+v", m.TokenID, m)
		}
	}
	if n != 2 {
		t.Errorf("%d start metas of the market, want 2", n)
	}
}
