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

// statusHistory is a fakeHistory whose trades' statuses the test moves,
// which can read trades by id (TradeRereader) when rereads is set.
type statusHistory struct {
	fakeHistory
	rereads bool
	byID    int // TradesByID calls
}

func (h *statusHistory) set(id, status string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := range h.trades {
		if h.trades[i].ID == id {
			h.trades[i].Status = status
		}
	}
}

func (h *statusHistory) TradesByID(_ context.Context, ids []string) ([]OwnTrade, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.byID++
	var out []OwnTrade
	for _, id := range ids {
		for _, t := range h.trades {
			if t.ID == id {
				out = append(out, t)
			}
		}
	}
	return out, nil
}

// noRereads hides TradesByID.
type noRereads struct{ h *statusHistory }

func (n noRereads) OwnTrades(ctx context.Context, since time.Time) ([]OwnTrade, error) {
	return n.h.OwnTrades(ctx, since)
}

type settleRig struct {
	v     *bookedVenue
	j     *memJournal
	h     *statusHistory
	clock *clocktest.Clock
	l     *Loop
	log   *syncBuffer
	s     *fakeSigner
}

// newSettleRig is a started loop on one market that sells what it holds
// first, with a trade history that carries settlement statuses.
func newSettleRig(t *testing.T, j *memJournal, h *statusHistory) *settleRig {
	return restartSettleRig(t, j, h, newBookedVenue(1, 100), &fakeSigner{}, lt0)
}

// restartSettleRig starts a loop on an existing venue and journal at start.
func restartSettleRig(t *testing.T, j *memJournal, h *statusHistory, v *bookedVenue, s *fakeSigner, start time.Time) *settleRig {
	t.Helper()
	clock := clocktest.New(start)
	v.setBook("yes0", "0.48", "0.52", start)
	v.setBook("no0", "0.48", "0.52", start)
	model, err := strategy.NewBands(strategy.BandsParams{Offsets: []float64{0.02}, Sizes: []float64{10}, AllowSell: true})
	if err != nil {
		t.Fatal(err)
	}
	kill, err := risk.NewKillSwitch(risk.KillConfig{MaxConsecutiveErrors: 100})
	if err != nil {
		t.Fatal(err)
	}
	var hist TradeHistory = h
	if !h.rereads {
		hist = noRereads{h}
	}
	log := &syncBuffer{}
	l, err := New(Config{Markets: nMarkets(1), Estimators: strategy.DefaultEstimatorParams(), Kill: kill, History: hist,
		Params: Params{Model: model, Tolerance: strategy.Tolerance{PriceTicks: 0, SizeFrac: 0.1}}},
		v, s, j, clock, zerolog.New(log), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return &settleRig{v: v, j: j, h: h, clock: clock, l: l, log: log, s: s}
}

func (r *settleRig) cycle(t *testing.T) {
	t.Helper()
	r.clock.Advance(time.Second)
	r.v.setBook("yes0", "0.48", "0.52", r.clock.Now())
	r.v.setBook("no0", "0.48", "0.52", r.clock.Now())
	if err := r.l.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// sellsOffered sums the live SELLs of a token.
func (r *settleRig) sellsOffered(token string) decimal.Decimal {
	r.v.mu.Lock()
	defer r.v.mu.Unlock()
	sum := decimal.Zero
	for _, o := range r.v.orders {
		if o.AssetID == token && o.Side == exchange.Sell && o.Status == exchange.StatusLive {
			sum = sum.Add(o.OriginalSize.Sub(o.SizeMatched))
		}
	}
	return sum
}

// Issue 20 point 6: a fill is booked pending at MATCHED, its shares are
// offered back only from MINED, and a trade that goes RETRYING → FAILED
// takes its fill back: the position in the loop and the journal, the
// session's PnL, the tally, one log line.
func TestLoopSettlement(t *testing.T) {
	ten := decimal.NewFromInt(10)
	for _, tc := range []struct {
		name  string
		steps []string
	}{
		{"settles", []string{exchange.TradeMatched, exchange.TradeMined, exchange.TradeConfirmed}},
		{"fails", []string{exchange.TradeMatched, exchange.TradeRetrying, exchange.TradeFailed}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newSettleRig(t, newMemJournal(), &statusHistory{rereads: true})
			r.cycle(t)
			id := r.v.fill("yes0", exchange.Buy, "10")
			if id == "" {
				t.Fatal("no YES bid to fill")
			}
			r.h.add(OwnTrade{ID: "t1", OrderID: id, Size: ten, Time: r.clock.Now(), Status: tc.steps[0]})
			r.cycle(t)
			r.cycle(t)
			if got := r.j.pos["yes0"]; !got.Equal(ten) {
				t.Fatalf("position after the match %s, want 10 (booked pending)", got)
			}
			if st := r.l.Status(); st.PendingTrades != 1 {
				t.Fatalf("%d pending trades, want 1", st.PendingTrades)
			}
			if got := r.sellsOffered("yes0"); got.IsPositive() {
				t.Fatalf("%s YES shares offered back while their trade is MATCHED (unsettled)", got)
			}
			r.h.set("t1", tc.steps[1])
			r.cycle(t)
			r.cycle(t)
			offered := r.sellsOffered("yes0")
			if (tc.steps[1] == exchange.TradeMined) != offered.Equal(ten) {
				t.Fatalf("%s YES shares offered back at %s", offered, tc.steps[1])
			}
			r.h.set("t1", tc.steps[2])
			r.cycle(t)
			r.cycle(t)
			st := r.l.Status()
			failed := r.log.lines(t, MsgTradeFailed)
			if tc.steps[2] == exchange.TradeConfirmed {
				if !r.j.pos["yes0"].Equal(ten) || st.Tally.Reversed != 0 || len(failed) != 0 || st.PendingTrades != 0 {
					t.Fatalf("confirmed: position %s, %d reversed, %d lines, %d pending", r.j.pos["yes0"], st.Tally.Reversed, len(failed), st.PendingTrades)
				}
				return
			}
			if got := r.j.pos["yes0"]; !got.IsZero() {
				t.Fatalf("journal position after the failed trade %s, want 0", got)
			}
			if got := st.Markets[0].Position[strategy.Yes]; !got.IsZero() {
				t.Fatalf("loop position after the failed trade %s, want 0", got)
			}
			if st.Tally.Reversed != 1 || !st.Tally.ReversedVolume.Equal(ten) || len(failed) != 1 || r.j.reversed != 1 {
				t.Fatalf("reversed %d (%s shares), %d log lines, journal %d; want 1 each", st.Tally.Reversed, st.Tally.ReversedVolume, len(failed), r.j.reversed)
			}
			if !st.Tally.MarkedPnL.IsZero() || !st.Tally.RealizedPnL.IsZero() {
				t.Fatalf("PnL after the only fill failed: marked %s realized %s, want 0", st.Tally.MarkedPnL, st.Tally.RealizedPnL)
			}
			if failed[0]["trade"] != "t1" {
				t.Fatalf("log line %v does not name the trade", failed[0])
			}
		})
	}
}

// Issue 20 point 6: a trade that stays MATCHED after the history's cursor
// has moved past it is read again by id until it is final; a restart
// remembers it (the journal's open trades) and a FAILED trade is not taken
// back twice.
func TestLoopUnsettledTradeReadUntilFinal(t *testing.T) {
	ten := decimal.NewFromInt(10)
	for _, rereads := range []bool{false, true} {
		name := map[bool]string{false: "cursor only", true: "by id"}[rereads]
		t.Run(name, func(t *testing.T) {
			j := newMemJournal()
			r := newSettleRig(t, j, &statusHistory{rereads: rereads})
			r.cycle(t)
			id := r.v.fill("yes0", exchange.Buy, "10")
			r.h.add(OwnTrade{ID: "t1", OrderID: id, Size: ten, Time: r.clock.Now(), Status: exchange.TradeMatched})
			r.cycle(t)
			r.cycle(t)
			// A newer trade moves the cursor a minute past t1.
			r.clock.Advance(time.Minute)
			id2 := r.v.fill("no0", exchange.Buy, "5")
			r.h.add(OwnTrade{ID: "t2", OrderID: id2, Size: decimal.NewFromInt(5), Time: r.clock.Now(), Status: exchange.TradeConfirmed})
			r.cycle(t)
			r.cycle(t)
			// A restart: the pending trade comes from the journal.
			r2 := restartSettleRig(t, j, r.h, r.v, r.s, r.clock.Now())
			r.h.set("t1", exchange.TradeFailed)
			for range 4 {
				r2.cycle(t)
			}
			if !rereads {
				if got := j.pos["yes0"]; !got.Equal(ten) || j.reversed != 0 {
					t.Fatalf("without reads by id: position %s, %d reversed; the test cannot see the failure", got, j.reversed)
				}
				return
			}
			if got := j.pos["yes0"]; !got.IsZero() || j.reversed != 1 {
				t.Fatalf("position %s and %d reversed after t1 failed, want 0 and 1", got, j.reversed)
			}
			if r.h.byID == 0 {
				t.Fatal("no read by id")
			}
			// The history shows t1 FAILED again after another restart: not taken back twice.
			r3 := restartSettleRig(t, j, r.h, r.v, r.s, r2.clock.Now())
			r.h.mu.Lock()
			r.h.trades[0].Time = r3.clock.Now().Add(-2 * time.Second) // within the first read
			r.h.mu.Unlock()
			for range 2 {
				r3.cycle(t)
			}
			if got := j.pos["yes0"]; !got.IsZero() || j.reversed != 1 || r3.l.Status().Tally.Reversed != 0 {
				t.Fatalf("t1 read FAILED again: position %s, journal reversed %d, loop reversed %d", got, j.reversed, r3.l.Status().Tally.Reversed)
			}
		})
	}
}
