package paper

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/replay"
	"github.com/mmbot/mmbot/exchange/sim"
	"github.com/mmbot/mmbot/strategy/loop"
)

// The simulated exchange changes a market's tick with the change of one
// token (the other token's book goes on reporting the old tick): the loop
// takes the new tick once, never flips back, and its orders on the new
// grid are accepted for both tokens.
func TestOneTokenTickChangeAgainstSim(t *testing.T) {
	r := newSimRig(t, sim.Config{Seed: 21, Markets: 4, Step: 50 * time.Millisecond,
		Flow: sim.FlowConfig{TakerRate: 3, TakerSize: 30, MakerRequote: time.Second}}, 1)
	r.advance(t, 3*time.Second)
	m := r.markets[0]
	fine := decimal.RequireFromString("0.001")
	if m.Tick.Equal(fine) {
		fine = decimal.RequireFromString("0.0001")
	}
	pv, err := NewVenue(r.client, Config{Markets: paperMarketsOf(r.markets), Now: r.ex.Now, Matcher: fillmodel.MatcherConfig{Seed: 3}})
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	l, err := loop.New(testLoopConfig(t, r.markets), pv, newTestSigner(t, 1), replay.NewMemJournal(), simLoopClock{r}, zerolog.New(&log), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := l.Start(ctx); err != nil {
		t.Fatal(err)
	}
	cycles := func(n int) {
		for range n {
			if err := l.Cycle(ctx); err != nil {
				t.Fatal(err)
			}
			r.advance(t, 500*time.Millisecond)
		}
	}
	cycles(10)
	placed := l.Tally().Placed
	if err := r.ex.ChangeTick(m.ConditionID, fine, m.TokenIDs[0]); err != nil {
		t.Fatal(err)
	}
	b, err := r.ex.Book(m.TokenIDs[1])
	if err != nil {
		t.Fatal(err)
	}
	if !b.TickSize.Equal(m.Tick) {
		t.Fatalf("the other token's book says tick %s, want the old %s", b.TickSize, m.Tick)
	}
	cycles(200)
	out := log.String()
	if n := strings.Count(out, loop.MsgTickChanged); n != 1 {
		t.Errorf("%d tick-change lines in 100 s after one token's change, want 1", n)
	}
	if n := strings.Count(out, "refused"); n != 0 {
		t.Errorf("%d refusals after the change:\n%.2000s", n, out)
	}
	if st := l.Status(); st.Markets[0].Stale || st.Markets[0].Stopped != "" {
		t.Errorf("market status %+v", st.Markets[0])
	}
	if l.Tally().Placed == placed {
		t.Error("no order placed after the change")
	}
	if err := l.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}
