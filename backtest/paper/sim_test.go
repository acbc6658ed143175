package paper

import (
	"context"
	"math/rand/v2"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/replay"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/sim"
	"github.com/mmbot/mmbot/signer"
	"github.com/mmbot/mmbot/strategy"
	"github.com/mmbot/mmbot/strategy/loop"
)

// simRig is a simulated exchange on a manual clock, served on 127.0.0.1:0,
// with a client (no authenticator) and the markets to quote.
type simRig struct {
	ex      *sim.Exchange
	client  *exchange.Client
	markets []strategy.Market
}

func newSimRig(t *testing.T, cfg sim.Config, nMarkets int) *simRig {
	t.Helper()
	cfg.Manual, cfg.NoRateLimits = true, true
	if cfg.RequestLogSize == 0 {
		cfg.RequestLogSize = 200_000
	}
	ex, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ex.Handler()) // 127.0.0.1:0
	t.Cleanup(func() {
		srv.Close()
		_ = ex.Close()
	})
	lim := exchange.DefaultLimits()
	lim.CLOBBooks = exchange.Cap{Requests: 1_000_000, Window: 10 * time.Second}
	lim.DataTrades = exchange.Cap{Requests: 1_000_000, Window: 10 * time.Second}
	lim.DataGeneral = exchange.Cap{Requests: 1_000_000, Window: 10 * time.Second}
	client, err := exchange.NewClient(exchange.Endpoints{Data: srv.URL + "/data", Catalog: srv.URL + "/catalog", CLOB: srv.URL + "/clob"},
		exchange.WithLimits(lim))
	if err != nil {
		t.Fatal(err)
	}
	r := &simRig{ex: ex, client: client}
	for _, m := range ex.Catalog().Markets {
		if len(r.markets) == nMarkets {
			break
		}
		if m.Closed || !m.Active {
			continue
		}
		r.markets = append(r.markets, strategy.Market{ConditionID: m.ConditionID, Slug: m.Slug, TokenIDs: m.TokenIDs,
			Tick: m.TickSize, MinSize: m.MinOrderSize, NegRisk: m.NegRisk, EndDate: m.EndDate})
	}
	if len(r.markets) < nMarkets {
		t.Fatalf("%d open markets, want %d", len(r.markets), nMarkets)
	}
	return r
}

// advance moves the exchange's manual clock.
func (r *simRig) advance(t *testing.T, d time.Duration) {
	t.Helper()
	if err := r.ex.Advance(d); err != nil {
		t.Fatal(err)
	}
}

// orderEndpointRequests counts requests to POST /orders, DELETE /order and
// GET /data/order/{id}.
func (r *simRig) orderEndpointRequests() int {
	n := 0
	for _, q := range r.ex.RequestLog() {
		if (q.Method == "POST" && q.Path == "/clob/orders") || (q.Method == "DELETE" && q.Path == "/clob/order") ||
			(q.Method == "GET" && strings.HasPrefix(q.Path, "/clob/data/order/")) {
			n++
		}
	}
	return n
}

func (r *simRig) requests(method, path string) int {
	n := 0
	for _, q := range r.ex.RequestLog() {
		if q.Method == method && q.Path == path {
			n++
		}
	}
	return n
}

// simLoopClock is the loop's clock on the exchange's manual clock: Sleep
// moves the exchange forward.
type simLoopClock struct{ r *simRig }

func (c simLoopClock) Now() time.Time { return c.r.ex.Now() }

func (c simLoopClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d > 0 {
		return c.r.ex.Advance(d)
	}
	return nil
}

// testSigner signs with the signer package and a key from a fixed seed.
type testSigner struct{ s *signer.Signer }

func newTestSigner(t *testing.T, seed byte) testSigner {
	t.Helper()
	key, err := signer.GenerateKey(rand.NewChaCha8([32]byte{seed}))
	if err != nil {
		t.Fatal(err)
	}
	s, err := signer.New(signer.DefaultConfig(), signer.Account{Key: key, Owner: "00000000-0000-4000-8000-000000000000"})
	if err != nil {
		t.Fatal(err)
	}
	return testSigner{s: s}
}

func (ts testSigner) SignOrder(m *strategy.Market, o *strategy.Order, typ exchange.OrderType) (exchange.PlacementItem, string, error) {
	so, err := ts.s.Sign(signer.OrderRequest{TokenID: o.TokenID, ConditionID: m.ConditionID, Side: o.Side, Price: o.Price, Size: o.Size,
		TickSize: m.Tick, MinSize: m.MinSize, NegRisk: m.NegRisk, OrderType: typ})
	if err != nil {
		return exchange.PlacementItem{}, "", err
	}
	return so.Item, so.Hash, nil
}

// testLoopConfig is a one-level bands strategy close to the touch.
func testLoopConfig(t *testing.T, markets []strategy.Market) loop.Config {
	t.Helper()
	model, err := strategy.NewBands(strategy.BandsParams{Offsets: []float64{0.01}, Sizes: []float64{10}})
	if err != nil {
		t.Fatal(err)
	}
	return loop.Config{Markets: markets, Estimators: strategy.DefaultEstimatorParams(), Cycle: 500 * time.Millisecond,
		TapeLimit: 200, Params: loop.Params{Model: model, Tolerance: strategy.Tolerance{PriceTicks: 0, SizeFrac: 0.1}}}
}

func paperMarketsOf(ms []strategy.Market) []Market {
	out := make([]Market, 0, len(ms))
	for _, m := range ms {
		out = append(out, Market{ConditionID: m.ConditionID, Tokens: m.TokenIDs, Tick: m.Tick, MinSize: m.MinSize})
	}
	return out
}

// TestPaperSessionAgainstSim runs the strategy loop on the paper venue
// against the simulated exchange: it places virtual orders, they fill from
// the exchange's real flow, and the exchange never sees a request to an
// order endpoint.
func TestPaperSessionAgainstSim(t *testing.T) {
	for _, mode := range []fillmodel.Mode{fillmodel.ModeQueue, fillmodel.ModeOptimistic} {
		t.Run(mode.String(), func(t *testing.T) {
			r := newSimRig(t, sim.Config{Seed: 21, Markets: 4, Step: 50 * time.Millisecond,
				Flow: sim.FlowConfig{TakerRate: 3, TakerSize: 30, MakerRequote: time.Second}}, 2)
			r.advance(t, 3*time.Second) // let the background makers build books
			pv, err := NewVenue(r.client, Config{Markets: paperMarketsOf(r.markets), Now: r.ex.Now,
				Matcher: fillmodel.MatcherConfig{Mode: mode, Seed: 3}})
			if err != nil {
				t.Fatal(err)
			}
			l, err := loop.New(testLoopConfig(t, r.markets), pv, newTestSigner(t, 1), replay.NewMemJournal(), simLoopClock{r}, zerolog.Nop(), nil)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if err := l.Start(ctx); err != nil {
				t.Fatal(err)
			}
			for range 60 { // 30 s of exchange time
				if err := l.Cycle(ctx); err != nil {
					t.Fatal(err)
				}
				r.advance(t, 500*time.Millisecond)
			}
			if err := l.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			st, tally := pv.Stats(), l.Tally()
			t.Logf("paper stats %+v; loop fills %d, placed %d, cancelled %d", st, tally.Fills, tally.Placed, tally.Cancelled)
			if st.Placed == 0 || tally.Placed != st.Placed {
				t.Errorf("virtual orders: venue %d, loop %d", st.Placed, tally.Placed)
			}
			if st.Fills == 0 || tally.Fills == 0 {
				t.Errorf("no virtual fill in 30 s of flow (venue %d, loop %d)", st.Fills, tally.Fills)
			}
			if st.Trades == 0 || st.Books == 0 {
				t.Errorf("the fill model was fed %d books and %d trades", st.Books, st.Trades)
			}
			if st.Open != 0 {
				t.Errorf("%d virtual orders left open after Shutdown", st.Open)
			}
			if n := r.orderEndpointRequests(); n != 0 {
				t.Errorf("%d requests reached the order endpoints", n)
			}
			if r.requests("POST", "/clob/books") == 0 || r.requests("GET", "/data/trades") == 0 {
				t.Error("the paper session read no books or no trades from the exchange")
			}
		})
	}
}
