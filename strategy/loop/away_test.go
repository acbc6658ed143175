package loop

import (
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/clocktest"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy"
)

type awayRig struct {
	v     *failVenue
	clock *clocktest.Clock
	kill  *risk.KillSwitch
	l     *Loop
	log   *syncBuffer
}

func newAwayRig(t *testing.T, kc risk.KillConfig) *awayRig {
	t.Helper()
	v := newFailVenue()
	clock := clocktest.New(lt0)
	model, err := strategy.NewBands(strategy.BandsParams{Offsets: []float64{0.02}, Sizes: []float64{10}})
	if err != nil {
		t.Fatal(err)
	}
	kill, err := risk.NewKillSwitch(kc)
	if err != nil {
		t.Fatal(err)
	}
	log := &syncBuffer{}
	l, err := New(Config{Markets: []strategy.Market{testMarket()}, Estimators: strategy.DefaultEstimatorParams(), Kill: kill,
		Params: Params{Model: model, Tolerance: strategy.Tolerance{PriceTicks: 0, SizeFrac: 0.1}}},
		v, &fakeSigner{}, newMemJournal(), clock, zerolog.New(log), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return &awayRig{v: v, clock: clock, kill: kill, l: l, log: log}
}

func (r *awayRig) cycle(t *testing.T) {
	t.Helper()
	r.clock.Advance(time.Second)
	r.v.setBook("yes", "0.48", "0.52", r.clock.Now())
	r.v.setBook("no", "0.48", "0.52", r.clock.Now())
	_ = r.l.Cycle(context.Background())
}

// Issue 20 point 7: while the exchange answers 503 or 425 (not ready, as
// the live one does while its matching engine restarts), the loop backs off
// without counting the answers as order errors.
func TestLoopNotReadyBurnsNoErrorBudget(t *testing.T) {
	for _, status := range []int{503, 425} {
		r := newAwayRig(t, risk.KillConfig{MaxConsecutiveErrors: 1})
		r.v.set(&exchange.APIError{Area: exchange.AreaCLOB, Endpoint: "POST /orders", Status: status, Message: "service not ready"})
		for range 5 {
			r.cycle(t)
		}
		if r.v.count("place") == 0 {
			t.Fatalf("%d: nothing was sent", status)
		}
		if tripped, trip := r.kill.Tripped(); tripped {
			t.Fatalf("%d: the kill switch tripped (%s: %s): not-ready answers counted as order errors", status, trip.Reason, trip.Detail)
		}
		r.v.set(nil)
		for range 40 { // past the grace of the placements whose answer was a 503
			r.cycle(t)
		}
		if r.v.live() != 2 {
			t.Fatalf("%d: %d orders live once the exchange is ready, want 2", status, r.v.live())
		}
	}
}

// Issue 20 point 7: a trip caused by the exchange being away clears by
// itself once the exchange has answered normally for AutoClearAfter, and
// quoting resumes, with one log line and a count; a drawdown trip stays.
func TestLoopAutoClearsExchangeAwayTrip(t *testing.T) {
	r := newAwayRig(t, risk.KillConfig{AutoClearAfter: 10 * time.Second, MaxDrawdown: decimal.NewFromInt(1000)})
	r.cycle(t)
	if r.v.live() != 2 {
		t.Fatalf("%d orders live, want 2", r.v.live())
	}
	tripAt := r.clock.Now()
	r.kill.Trip(risk.TripStaleQuotes, "test: the exchange was away", tripAt)
	r.cycle(t)
	if r.v.live() != 0 {
		t.Fatalf("%d orders live after the trip, want 0", r.v.live())
	}
	for r.clock.Now().Sub(tripAt) < 9*time.Second {
		r.cycle(t)
		if tripped, _ := r.kill.Tripped(); !tripped {
			t.Fatalf("cleared %s after the trip, want 10s", r.clock.Now().Sub(tripAt))
		}
	}
	r.cycle(t)
	r.cycle(t)
	if tripped, _ := r.kill.Tripped(); tripped {
		t.Fatalf("still tripped %s after the trip", r.clock.Now().Sub(tripAt))
	}
	if r.v.live() != 2 {
		t.Fatalf("%d orders live after the clear, want 2", r.v.live())
	}
	if n := len(r.log.lines(t, MsgAutoCleared)); n != 1 || r.l.Status().Tally.AutoClears != 1 {
		t.Fatalf("%d log lines, %d counted; want 1 each", n, r.l.Status().Tally.AutoClears)
	}
	r.kill.Trip(risk.TripDrawdown, "test", r.clock.Now())
	for range 30 {
		r.cycle(t)
	}
	if tripped, _ := r.kill.Tripped(); !tripped || r.v.live() != 0 {
		t.Fatal("a drawdown trip cleared by itself")
	}
}
