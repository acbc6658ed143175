package loop

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/clocktest"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy"
)

// tickRig is a started loop on the fake venue with its log in a buffer.
func tickRig(t *testing.T) (*loopRig, *bytes.Buffer) {
	t.Helper()
	v := newFakeVenue()
	v.setBook("yes", "0.48", "0.52", lt0)
	v.setBook("no", "0.48", "0.52", lt0)
	model, err := strategy.NewBands(strategy.BandsParams{Offsets: []float64{0.03}, Sizes: []float64{10}})
	if err != nil {
		t.Fatal(err)
	}
	kill, err := risk.NewKillSwitch(risk.KillConfig{MaxConsecutiveErrors: 3})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	clock := clocktest.New(lt0)
	j := newMemJournal()
	l, err := New(Config{Markets: []strategy.Market{testMarket()}, Estimators: strategy.DefaultEstimatorParams(), Kill: kill,
		Params: Params{Model: model, Tolerance: strategy.Tolerance{SizeFrac: 0.1}}},
		v, &fakeSigner{}, j, clock, zerolog.New(&buf), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return &loopRig{v: v, j: j, clock: clock, l: l, kill: kill}, &buf
}

// setTick sets the tick size of one token's book on the fake venue, as a
// tick_size_change of that token alone leaves the books: the other token
// keeps reporting the old tick.
func (v *fakeVenue) setTick(token, tick string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	b := v.books[token]
	b.TickSize = decimal.RequireFromString(tick)
	v.books[token] = b
}

// liveOrders returns the venue's live orders.
func (v *fakeVenue) liveOrders() []exchange.Order {
	v.mu.Lock()
	defer v.mu.Unlock()
	var out []exchange.Order
	for _, o := range v.orders {
		if o.Status == exchange.StatusLive {
			out = append(out, *o)
		}
	}
	return out
}

// A tick change reported by one token's book (the other token still
// reports the old tick, as after a tick_size_change for one token) changes
// the market's tick once: one warning, the orders off the new grid
// replaced once, the market quoted on the new grid every cycle after,
// never flapping between the two ticks.
func TestLoopOneTokenTickChangeDoesNotFlap(t *testing.T) {
	r, buf := tickRig(t)
	r.cycle(t)
	if got := len(r.v.liveOrders()); got != 2 {
		t.Fatalf("%d live orders after the first cycle, want 2", got)
	}
	// The bids rest at 0.47 (fair 0.50 − 0.03): off a 0.1 grid.
	r.v.setTick("yes", "0.1")
	const cycles = 200
	cancels0, placed0 := r.v.calls["cancel"], r.v.placed
	var stale int
	for i := 0; i < cycles; i++ {
		r.clock.Advance(time.Second)
		for _, tok := range []string{"yes", "no"} {
			r.v.mu.Lock()
			b := r.v.books[tok]
			b.Timestamp = fmt.Sprint(r.clock.Now().UnixMilli())
			r.v.books[tok] = b
			r.v.mu.Unlock()
		}
		r.cycle(t)
		if r.l.Status().Markets[0].Stale {
			stale++
		}
	}
	if n := strings.Count(buf.String(), "tick size changed"); n != 1 {
		t.Errorf("%d \"tick size changed\" lines over %d cycles after one token's change, want 1", n, cycles)
	}
	if stale != 0 {
		t.Errorf("the market was stale in %d of %d cycles", stale, cycles)
	}
	if got := r.l.Status().Markets[0].Stopped; got != "" {
		t.Errorf("market stopped: %s", got)
	}
	if c := r.v.calls["cancel"] - cancels0; c != 2 {
		t.Errorf("%d cancels after the change, want 2 (the two bids off the new grid, once)", c)
	}
	if p := r.v.placed - placed0; p != 2 {
		t.Errorf("%d orders placed after the change, want 2 (the two bids on the new grid, once)", p)
	}
	tick := decimal.RequireFromString("0.1")
	live := r.v.liveOrders()
	if len(live) != 2 {
		t.Fatalf("%d live orders, want 2", len(live))
	}
	for _, o := range live {
		if !o.Price.Mod(tick).IsZero() {
			t.Errorf("order %s of %s at %s: off the new 0.1 grid", o.ID, o.AssetID, o.Price)
		}
	}
}

// The market's tick follows every token's changes, each counted once:
// one token changes it, the other catching up changes nothing, and a later
// change of either token (back to the old tick, say) changes it again.
func TestLoopTickFollowsEitherToken(t *testing.T) {
	r, buf := tickRig(t)
	steps := []struct {
		token, tick string
		want        string // the market's tick after the cycle
		warnings    int    // "tick size changed" lines so far
	}{
		{"yes", "0.001", "0.001", 1},
		{"no", "0.001", "0.001", 1}, // the other token catches up: no change
		{"", "", "0.001", 1},
		{"no", "0.01", "0.01", 2}, // back, reported by the other token first
		{"yes", "0.01", "0.01", 2},
		{"yes", "0.1", "0.1", 3},
	}
	r.cycle(t)
	ticks := map[string]string{"yes": "0.01", "no": "0.01"}
	for i, s := range steps {
		if s.token != "" {
			ticks[s.token] = s.tick
		}
		for k := 0; k < 3; k++ {
			r.clock.Advance(time.Second)
			for tok, tick := range ticks {
				r.v.setBook(tok, "0.48", "0.52", r.clock.Now())
				r.v.setTick(tok, tick)
			}
			r.cycle(t)
		}
		if got := r.l.markets[0].m.Tick.String(); got != s.want {
			t.Errorf("step %d (%s reports %s): market tick %s, want %s", i, s.token, s.tick, got, s.want)
		}
		if n := strings.Count(buf.String(), "tick size changed"); n != s.warnings {
			t.Errorf("step %d: %d tick-change lines, want %d", i, n, s.warnings)
		}
	}
}

// The first books may already disagree (one token's change came before
// the loop started): the token reporting a change wins, in whichever order
// the books are read.
func TestLoopFirstBooksDisagreeOnTick(t *testing.T) {
	for _, changed := range []string{"yes", "no"} {
		t.Run(changed, func(t *testing.T) {
			v := newFakeVenue()
			v.setBook("yes", "0.48", "0.52", lt0)
			v.setBook("no", "0.48", "0.52", lt0)
			v.setTick(changed, "0.001")
			r := newRig(t, v, nil)
			if err := r.l.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 3; i++ {
				r.cycle(t)
				if got := r.l.markets[0].m.Tick.String(); got != "0.001" {
					t.Fatalf("cycle %d: market tick %s, want 0.001 (from %s's book)", i, got, changed)
				}
			}
		})
	}
}
