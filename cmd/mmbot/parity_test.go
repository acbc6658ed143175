package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/assemble"
	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/backtest/replay"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/sim"
	"github.com/mmbot/mmbot/signer"
	"github.com/mmbot/mmbot/strategy"
	"github.com/mmbot/mmbot/strategy/loop"
)

// The parity test (issue 7): a session run live against the simulated
// exchange with its recording on, then replayed with the same configuration
// and zero latency, must make the same decisions for the same inputs.
//
// Both runs go through a decision log: per cycle, the books the loop got
// (its inputs) and the cancels and placements it sent (its decisions: token,
// side, price, size). Cycles are matched by time. Where the inputs match and
// neither run has seen a fill yet, the decisions must be identical. After
// the first fill the fill models differ (the exchange's matching of real
// orders against the fill model's queue estimate of virtual ones), and the
// test reports what diverges; docs/backtesting.md explains the causes.

// parityCycle is one cycle of a run as the decision log saw it.
type parityCycle struct {
	at      time.Time
	inputs  string
	places  []string
	cancels []string
	fills   int
}

func (c *parityCycle) decisions() string {
	p, x := sortedCopy(c.places), sortedCopy(c.cancels)
	return "cancel[" + strings.Join(x, "; ") + "] place[" + strings.Join(p, "; ") + "]"
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// parityLog wraps a venue and records every cycle's inputs and decisions.
type parityLog struct {
	loop.Venue
	now       func() time.Time
	afterRead func() // live: move the exchange's clock past the read (see below)

	mu     sync.Mutex
	cycles []*parityCycle
	orders map[string]string // order id → its description
	closed bool
}

func newParityLog(v loop.Venue, now func() time.Time) *parityLog {
	return &parityLog{Venue: v, now: now, orders: map[string]string{}}
}

func (p *parityLog) cur() *parityCycle {
	if p.closed || len(p.cycles) == 0 {
		return &parityCycle{} // outside the compared cycles
	}
	return p.cycles[len(p.cycles)-1]
}

func (p *parityLog) Books(ctx context.Context, toks []string) ([]exchange.OrderBook, error) {
	bs, err := p.Venue.Books(ctx, toks)
	if err != nil {
		return bs, err
	}
	p.mu.Lock()
	if !p.closed {
		p.cycles = append(p.cycles, &parityCycle{at: p.now(), inputs: formatBooks(bs)})
	}
	p.mu.Unlock()
	if p.afterRead != nil {
		p.afterRead()
	}
	return bs, nil
}

func (p *parityLog) PlaceOrders(ctx context.Context, items []exchange.PlacementItem) ([]exchange.PlacementResult, error) {
	res, err := p.Venue.PlaceOrders(ctx, items)
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.cur()
	for i := range items {
		d := describeItem(&items[i])
		c.places = append(c.places, d)
		if err == nil && i < len(res) && res[i].Success {
			p.orders[res[i].OrderID] = d
		}
	}
	return res, err
}

func (p *parityLog) CancelOrder(ctx context.Context, id string) (*exchange.CancelResult, error) {
	p.mu.Lock()
	d, ok := p.orders[id]
	if !ok {
		d = "unknown " + id
	}
	p.cur().cancels = append(p.cur().cancels, d)
	p.mu.Unlock()
	return p.Venue.CancelOrder(ctx, id)
}

// OnCycle is the loop's observer: the fills the cycle discovered.
func (p *parityLog) OnCycle(r *loop.CycleReport) {
	p.mu.Lock()
	p.cur().fills += r.Fills
	p.mu.Unlock()
}

func (p *parityLog) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
}

// formatBooks describes books by token, levels best first.
func formatBooks(bs []exchange.OrderBook) string {
	cp := make([]exchange.OrderBook, len(bs))
	copy(cp, bs)
	sort.Slice(cp, func(i, j int) bool { return cp[i].AssetID < cp[j].AssetID })
	var b strings.Builder
	for i := range cp {
		ob := cp[i]
		ob.Bids, ob.Asks = append([]exchange.PriceLevel(nil), ob.Bids...), append([]exchange.PriceLevel(nil), ob.Asks...)
		ob.Normalize()
		fmt.Fprintf(&b, "%s bids", parityID(ob.AssetID))
		for _, l := range ob.Bids {
			fmt.Fprintf(&b, " %s:%s", l.Price, l.Size)
		}
		b.WriteString(" asks")
		for _, l := range ob.Asks {
			fmt.Fprintf(&b, " %s:%s", l.Price, l.Size)
		}
		b.WriteString(" | ")
	}
	return b.String()
}

// describeItem reads token, side, price and size from a signed item.
func describeItem(it *exchange.PlacementItem) string {
	mk, _ := decimal.NewFromString(it.Order.MakerAmount)
	tk, _ := decimal.NewFromString(it.Order.TakerAmount)
	coll, sh := mk, tk
	if it.Order.Side == exchange.Sell {
		coll, sh = tk, mk
	}
	price := decimal.Zero
	if sh.IsPositive() {
		price = coll.Div(sh)
	}
	return fmt.Sprintf("%s %s %s x %s", parityID(it.Order.TokenID), it.Order.Side, price, sh.Shift(-6))
}

func parityID(s string) string {
	if len(s) > 8 {
		return s[:8]
	}
	return s
}

// parityLoopConfig is the strategy of both runs.
func parityLoopConfig(t *testing.T, markets []strategy.Market, offset float64) loop.Config {
	t.Helper()
	model, err := strategy.NewBands(strategy.BandsParams{Offsets: []float64{offset, offset + 0.02}, Sizes: []float64{10, 15}})
	if err != nil {
		t.Fatal(err)
	}
	return loop.Config{Markets: markets, Estimators: strategy.DefaultEstimatorParams(), Cycle: 500 * time.Millisecond,
		TapeLimit: 200, Params: loop.Params{Model: model, Tolerance: strategy.Tolerance{PriceTicks: 0, SizeFrac: 0.1}}}
}

// parityLive runs the loop live against a simulated exchange on a manual
// clock, with the exchange recording itself (the `mmbot sim --record` code),
// and returns the decision log, the markets and the recording's path.
func parityLive(t *testing.T, seed uint64, offset float64, cycles int) (*parityLog, []strategy.Market, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "live.mmrec")
	rec, err := newSimRecorder(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rec.abort)
	ex, err := sim.New(sim.Config{Seed: seed, Markets: 3, Manual: true, Step: 50 * time.Millisecond, NoRateLimits: true,
		Rand: rand.NewChaCha8([32]byte{byte(seed)}), OnBook: rec.onBook, OnTrade: rec.onTrade,
		Flow: sim.FlowConfig{TakerRate: 2, TakerSize: 20, MakerRequote: 2 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ex.Handler()) // 127.0.0.1:0
	t.Cleanup(func() {
		srv.Close()
		_ = ex.Close()
	})
	ac, err := ex.CreateAccount(sim.AccountOptions{Label: "bot", Fund: decimal.NewFromInt(100_000)})
	if err != nil {
		t.Fatal(err)
	}
	key, err := signer.ParseKey(ac.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	sgn, err := signer.New(signer.DefaultConfig(), signer.Account{Key: key, Owner: ac.APIKey})
	if err != nil {
		t.Fatal(err)
	}
	l2, err := signer.NewL2(signer.Credentials{APIKey: ac.APIKey, Secret: ac.Secret, Passphrase: ac.Passphrase}, key.Address(), nil)
	if err != nil {
		t.Fatal(err)
	}
	lim := exchange.DefaultLimits()
	lim.CLOBBooks = exchange.Cap{Requests: 1_000_000, Window: 10 * time.Second}
	lim.DataTrades = exchange.Cap{Requests: 1_000_000, Window: 10 * time.Second}
	lim.DataGeneral = exchange.Cap{Requests: 1_000_000, Window: 10 * time.Second}
	client, err := exchange.NewClient(exchange.Endpoints{Data: srv.URL + "/data", Catalog: srv.URL + "/catalog", CLOB: srv.URL + "/clob"},
		exchange.WithLimits(lim), exchange.WithAuthenticator(l2))
	if err != nil {
		t.Fatal(err)
	}
	var markets []strategy.Market
	for _, m := range ex.Catalog().Markets {
		if !m.Closed && m.Active && len(markets) < 2 {
			markets = append(markets, strategy.Market{ConditionID: m.ConditionID, Slug: m.Slug, TokenIDs: m.TokenIDs,
				Tick: m.TickSize, MinSize: m.MinOrderSize, NegRisk: m.NegRisk, EndDate: m.EndDate})
		}
	}

	// Warm up the background makers, then start recording at the first
	// cycle's instant: the recording begins with the books the loop reads.
	if err := ex.Advance(3 * time.Second); err != nil {
		t.Fatal(err)
	}
	rec.start(ex, ex.Now())

	// The exchange's manual clock does not move during a cycle, so the
	// loop's own orders would carry the instant of its book read, and a
	// replay would see them in that read. Moving the clock 1 ms after each
	// read stamps them after it, as on a real exchange.
	clock := simLoopClock{ex}
	plog := newParityLog(client, ex.Now)
	plog.afterRead = func() { _ = ex.Advance(time.Millisecond) }
	l, err := loop.New(parityLoopConfig(t, markets, offset), plog, assemble.OrderSigner{Signer: sgn}, replay.NewMemJournal(), clock, zerolog.Nop(), plog)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := l.Start(ctx); err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := l.Run(ctx, func(error) {
		if n++; n >= cycles {
			cancel()
		}
	}); err != nil {
		t.Fatal(err)
	}
	plog.close()
	if err := l.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := ex.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := rec.close(); err != nil {
		t.Fatal(err)
	}
	return plog, markets, path
}

// simLoopClock is the loop's clock on the exchange's manual clock.
type simLoopClock struct{ ex *sim.Exchange }

func (c simLoopClock) Now() time.Time { return c.ex.Now() }

func (c simLoopClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d > 0 {
		return c.ex.Advance(d)
	}
	return nil
}

// parityReplay replays the recording with the same strategy and zero
// latency. The recording holds the live bot's own orders (the exchange
// recorded its whole book), so the replay's books are returned as recorded
// (HideOwnOrders): they already show the orders the replayed bot placed,
// when it placed the same ones.
func parityReplay(t *testing.T, markets []strategy.Market, path string, offset float64) *parityLog {
	t.Helper()
	src, err := recording.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	rp, err := replay.New(src, replay.Config{Markets: markets, Matcher: fillmodel.MatcherConfig{Mode: fillmodel.ModeQueue, Seed: 1},
		HideOwnOrders: true}, accounting.NewAccumulator(accounting.AccumulatorConfig{}))
	if err != nil {
		t.Fatal(err)
	}
	plog := newParityLog(rp, rp.Now)
	l, err := loop.New(parityLoopConfig(t, markets, offset), plog, &replay.Signer{}, replay.NewMemJournal(), rp, zerolog.Nop(), plog)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := l.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Run(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := rp.Err(); err != nil {
		t.Fatal(err)
	}
	plog.close()
	return plog
}

// parityReport compares two decision logs cycle by cycle.
type parityReport struct {
	matched        int // live cycles with a replay cycle at the same instant
	firstFill      time.Time
	before         int // cycles before the first fill of either run
	beforeInputsEq int
	beforeSame     int // ... with equal inputs and equal decisions
	after          int
	afterInputsEq  int
	afterSame      int
	places         int // placements in the cycles before the first fill
	diffs          []string
	liveFills      int
	replayFills    int
	firstDiff      string // the first cycle after the first fill whose decisions differ
}

func compareParity(live, replay *parityLog) parityReport {
	var r parityReport
	byTime := map[time.Time]*parityCycle{}
	for _, c := range replay.cycles {
		byTime[c.at] = c
	}
	for i, runs := range [][]*parityCycle{live.cycles, replay.cycles} {
		for _, c := range runs {
			if c.fills > 0 && (r.firstFill.IsZero() || c.at.Before(r.firstFill)) {
				r.firstFill = c.at
			}
			if i == 0 {
				r.liveFills += c.fills
			} else {
				r.replayFills += c.fills
			}
		}
	}
	for _, lc := range live.cycles {
		rc := byTime[lc.at]
		if rc == nil {
			continue
		}
		r.matched++
		inEq := lc.inputs == rc.inputs
		same := inEq && lc.decisions() == rc.decisions()
		if r.firstFill.IsZero() || lc.at.Before(r.firstFill) {
			r.before++
			r.places += len(lc.places)
			if inEq {
				r.beforeInputsEq++
			}
			if same {
				r.beforeSame++
			} else if inEq && len(r.diffs) < 3 {
				r.diffs = append(r.diffs, fmt.Sprintf("%s\n   live   %s\n   replay %s", lc.at.Format("15:04:05.000"), lc.decisions(), rc.decisions()))
			}
			continue
		}
		r.after++
		if inEq {
			r.afterInputsEq++
		}
		if same {
			r.afterSame++
		} else if r.firstDiff == "" {
			r.firstDiff = fmt.Sprintf("%s (live fills %d, replay fills %d this cycle)\n   live   %s\n   replay %s",
				lc.at.Format("15:04:05.000"), lc.fills, rc.fills, lc.decisions(), rc.decisions())
		}
	}
	return r
}

func TestLiveReplayParity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		seed      uint64
		offset    float64 // distance of the first band from the fair value
		cycles    int
		minBefore int // cycles before the first fill the case must compare
	}{
		{"wide quotes", 31, 0.06, 60, 30},  // rarely filled: a long run before the first fill
		{"tight quotes", 32, 0.005, 60, 1}, // filled early: the fill models part ways
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			live, markets, path := parityLive(t, tt.seed, tt.offset, tt.cycles)
			replay := parityReplay(t, markets, path, tt.offset)
			r := compareParity(live, replay)
			t.Logf("%d live cycles, %d replay cycles, %d matched by time; first fill %v", len(live.cycles), len(replay.cycles), r.matched, r.firstFill)
			t.Logf("before the first fill: %d cycles, %d with equal inputs, %d with equal inputs and decisions (%d placements)",
				r.before, r.beforeInputsEq, r.beforeSame, r.places)
			t.Logf("after the first fill: %d cycles, %d with equal inputs, %d with equal inputs and decisions; fills live %d, replay %d",
				r.after, r.afterInputsEq, r.afterSame, r.liveFills, r.replayFills)
			if r.firstDiff != "" {
				t.Logf("first divergence: %s", r.firstDiff)
			}
			if r.matched < tt.cycles-1 {
				t.Errorf("only %d of %d live cycles have a replay cycle at the same instant", r.matched, len(live.cycles))
			}
			if r.beforeSame != r.beforeInputsEq {
				t.Errorf("same inputs, different decisions before any fill:\n%s", strings.Join(r.diffs, "\n"))
			}
			if r.beforeInputsEq != r.before {
				t.Errorf("%d of %d cycles before the first fill saw different books", r.before-r.beforeInputsEq, r.before)
			}
			if r.before < tt.minBefore || r.places == 0 {
				t.Errorf("too little to compare: %d cycles and %d placements before the first fill", r.before, r.places)
			}
		})
	}
}
