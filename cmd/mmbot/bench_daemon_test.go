package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/assemble"
	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/clocktest"
	"github.com/mmbot/mmbot/exchange/sim"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/signer"
	"github.com/mmbot/mmbot/state"
	"github.com/mmbot/mmbot/strategy"
	"github.com/mmbot/mmbot/strategy/loop"
)

// memVenue is an in-memory exchange for the cycle benchmarks: the books of
// every token alternate between two mids three ticks apart (phase), so every
// cycle requotes every order; placements are serialized to JSON as the
// HTTP client would, then rest until cancelled. As on the exchange (and
// the simulator), an order's id is its hash (hashes: salt → hash, filled
// by hashSigner).
type memVenue struct {
	books  map[string][2]exchange.OrderBook
	phase  int
	now    func() time.Time
	orders map[string]*exchange.Order
	hashes map[string]string
	bytes  int // JSON bytes of every POST /orders body
}

// hashSigner tells the venue each signed order's hash. It signs on as
// many goroutines as the signer it wraps (loop.ConcurrentSigner), as the
// daemon does.
type hashSigner struct {
	loop.OrderSigner
	v  *memVenue
	mu *sync.Mutex // guards v.hashes
}

func (h hashSigner) SignOrder(m *strategy.Market, o *strategy.Order, t exchange.OrderType) (exchange.PlacementItem, string, error) {
	item, hash, err := h.OrderSigner.SignOrder(m, o, t)
	if err == nil {
		h.mu.Lock()
		h.v.hashes[item.Order.Salt] = hash
		h.mu.Unlock()
	}
	return item, hash, err
}

func (h hashSigner) SignWorkers() int {
	if cs, ok := h.OrderSigner.(loop.ConcurrentSigner); ok {
		return cs.SignWorkers()
	}
	return 1
}

var _ loop.Venue = (*memVenue)(nil)

func newMemVenue(markets []strategy.Market, now func() time.Time) *memVenue {
	v := &memVenue{books: map[string][2]exchange.OrderBook{}, now: now, orders: map[string]*exchange.Order{}, hashes: map[string]string{}}
	for _, m := range markets {
		for o, tok := range m.TokenIDs {
			var pair [2]exchange.OrderBook
			for ph, mid := range []int64{50, 52} {
				if o == 1 {
					mid = 100 - mid
				}
				b := exchange.OrderBook{AssetID: tok, Market: m.ConditionID, TickSize: m.Tick, MinOrderSize: m.MinSize}
				for i := range int64(5) {
					sz := decimal.New(10000+1000*i, -2)
					b.Bids = append(b.Bids, exchange.PriceLevel{Price: decimal.New(mid-2-i, -2), Size: sz})
					b.Asks = append(b.Asks, exchange.PriceLevel{Price: decimal.New(mid+2+i, -2), Size: sz})
				}
				pair[ph] = b
			}
			v.books[tok] = pair
		}
	}
	return v
}

func (v *memVenue) Books(_ context.Context, ids []string) ([]exchange.OrderBook, error) {
	ts := strconv.FormatInt(v.now().UnixMilli(), 10)
	out := make([]exchange.OrderBook, 0, len(ids))
	for _, id := range ids {
		b, ok := v.books[id]
		if !ok {
			return nil, exchange.ErrNotFound
		}
		c := b[v.phase]
		c.Timestamp = ts
		c.Bids = append([]exchange.PriceLevel(nil), c.Bids...)
		c.Asks = append([]exchange.PriceLevel(nil), c.Asks...)
		out = append(out, c)
	}
	return out, nil
}

func (v *memVenue) Trades(context.Context, exchange.TradesParams) ([]exchange.Trade, error) {
	return nil, nil
}

func (v *memVenue) PlaceOrders(_ context.Context, items []exchange.PlacementItem) ([]exchange.PlacementResult, error) {
	body, err := json.Marshal(items)
	if err != nil {
		return nil, err
	}
	v.bytes += len(body)
	res := make([]exchange.PlacementResult, len(items))
	for i := range items {
		o := &items[i].Order
		id := v.hashes[o.Salt]
		delete(v.hashes, o.Salt)
		v.orders[id] = &exchange.Order{ID: id, Status: exchange.StatusLive, AssetID: o.TokenID, Side: o.Side}
		res[i] = exchange.PlacementResult{Success: true, OrderID: id, Status: exchange.PlaceLive}
	}
	return res, nil
}

func (v *memVenue) CancelOrder(_ context.Context, id string) (*exchange.CancelResult, error) {
	o, ok := v.orders[id]
	if !ok {
		return nil, exchange.ErrNotFound
	}
	o.Status = exchange.StatusCanceled
	return &exchange.CancelResult{Canceled: []string{id}}, nil
}

func (v *memVenue) Order(_ context.Context, id string) (*exchange.Order, error) {
	o, ok := v.orders[id]
	if !ok {
		return nil, exchange.ErrNotFound
	}
	c := *o
	if o.Status != exchange.StatusLive {
		delete(v.orders, id) // final: the loop does not read it again
	}
	return &c, nil
}

func (v *memVenue) Budget(time.Time) exchange.Budget {
	return exchange.Budget{Orders: 1 << 30, Cancels: 1 << 30}
}

// memJournal is a minimal in-memory Journal: the benchmarks measure the
// cycle, and the bbolt variant adds the real store.
type memJournal struct {
	orders map[string]loop.JournalState
}

func (j *memJournal) RecordIntents(in []loop.Intent, _ time.Time) error {
	for i := range in {
		j.orders[in[i].Hash] = loop.JIntent
	}
	return nil
}

func (j *memJournal) Apply(b *loop.Batch) error {
	for _, u := range b.Updates {
		if u.State.Final() {
			delete(j.orders, u.Hash)
		} else {
			j.orders[u.Hash] = u.State
		}
	}
	return nil
}

func (j *memJournal) NonFinal() ([]loop.JournaledOrder, error)       { return nil, nil }
func (j *memJournal) Positions() (map[string]decimal.Decimal, error) { return nil, nil }

// timedJournal measures the time a cycle spends in its journal.
type timedJournal struct {
	j       loop.Journal
	elapsed time.Duration
}

func (t *timedJournal) RecordIntents(in []loop.Intent, now time.Time) error {
	defer t.time(time.Now())
	return t.j.RecordIntents(in, now)
}

func (t *timedJournal) Apply(b *loop.Batch) error {
	defer t.time(time.Now())
	return t.j.Apply(b)
}

func (t *timedJournal) time(start time.Time) { t.elapsed += time.Since(start) }

func (t *timedJournal) NonFinal() ([]loop.JournaledOrder, error)       { return t.j.NonFinal() }
func (t *timedJournal) Positions() (map[string]decimal.Decimal, error) { return t.j.Positions() }

// benchMarkets makes n markets with token ids and condition ids of the
// real shapes (uint256 decimals, 0x + 64 hex).
func benchMarkets(n int) []strategy.Market {
	out := make([]strategy.Market, n)
	for i := range out {
		out[i] = strategy.Market{
			ConditionID: fmt.Sprintf("0x%064x", 0xc0de0000+i),
			Slug:        fmt.Sprintf("bench-%d", i),
			TokenIDs: [2]string{fmt.Sprintf("7132104567925221259462638553270691275033272857194253228963137931245%010d", 2*i),
				fmt.Sprintf("7132104567925221259462638553270691275033272857194253228963137931245%010d", 2*i+1)},
			Tick: dec("0.01"), MinSize: dec("5"), EndDate: time.Date(2027, 6, 1, 0, 0, 0, 0, time.UTC),
		}
	}
	return out
}

// benchConfig is the daemon's configuration for the benchmarks: defaults,
// two bands (four orders a market: a bid on each token at each level) and
// limits wide enough for 200 markets.
func benchConfig() *configs.Config {
	cfg := configs.Defaults()
	cfg.Strategy.Model = "bands"
	cfg.Strategy.Bands.Levels = []configs.BandLevel{{Offset: dec("0.01"), Size: dec("10")}, {Offset: dec("0.03"), Size: dec("20")}}
	r := &cfg.Risk
	r.MaxOpenOrdersTotal, r.MaxOpenOrdersMarket = 1000, 8
	r.MaxTotalPosition, r.MaxPosition, r.MaxCollateralAtRisk = dec("1000000"), dec("1000"), dec("1000000")
	return &cfg
}

// benchLoop wires a loop as the daemon does, over the in-memory venue, a real
// signer with a real key, and the given journal.
func benchLoop(b *testing.B, n int, j loop.Journal) (*loop.Loop, *memVenue, *clocktest.Clock) {
	b.Helper()
	cfg := benchConfig()
	key, err := signer.GenerateKey(rand.NewChaCha8([32]byte{7}))
	if err != nil {
		b.Fatal(err)
	}
	sgn, err := signer.New(assemble.SignerConfig(cfg), signer.Account{Key: key, Owner: "6f2c7b4e-0a1d-4c55-9c2e-3b1f0e6d8a90"})
	if err != nil {
		b.Fatal(err)
	}
	params, est, err := assemble.StrategyParams(cfg)
	if err != nil {
		b.Fatal(err)
	}
	kill, err := risk.NewKillSwitch(assemble.KillConfig(&cfg.Risk))
	if err != nil {
		b.Fatal(err)
	}
	clock := clocktest.New(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	markets := benchMarkets(n)
	v := newMemVenue(markets, clock.Now)
	lc := assemble.LoopConfig(cfg, markets, params, est, kill)
	lc.TapeLimit = 0
	l, err := loop.New(lc, v, hashSigner{assemble.OrderSigner{Signer: sgn}, v, &sync.Mutex{}}, j, clock, zerolog.Nop(), nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := l.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	return l, v, clock
}

// BenchmarkDaemonCycle is one quote cycle of the daemon's loop, as wired by
// `mmbot run` with the default rules against adverse selection, for 1, 20
// and 200 markets: read books, read orders, model, plan, risk, sign
// (EIP-712 and secp256k1, four new orders a market), journal, cancel (four
// a market, each read back), serialize the POST /orders bodies. Every
// cycle requotes every order: the books alternate between two mids two
// ticks apart, past the price tolerance (one tick). Before the timer
// starts, the loop runs until a cycle requotes every market (warmCycles):
// the volatility estimate learns the books' moves, so that, as on a real
// book, a move of the usual size is not a jump that pulls the quotes.
// "mem" journals in memory; "bbolt" is the real journal without fsync.
// journal-µs/market is the part of the cycle spent in the journal's two
// calls. The "unchanged" variants keep the books still after the warm-up:
// what a cycle costs a market that has nothing to requote.
func BenchmarkDaemonCycle(b *testing.B) {
	for _, jname := range []string{"mem", "bbolt"} {
		for _, n := range []int{1, 20, 200} {
			for _, moving := range []bool{true, false} {
				name := fmt.Sprintf("journal=%s/markets=%d", jname, n)
				if !moving {
					name += "/unchanged"
				}
				b.Run(name, func(b *testing.B) { benchDaemonCycle(b, jname, n, moving) })
			}
		}
	}
}

func benchDaemonCycle(b *testing.B, jname string, n int, moving bool) {
	var inner loop.Journal = &memJournal{orders: map[string]loop.JournalState{}}
	if jname == "bbolt" {
		st, err := state.Open(filepath.Join(b.TempDir(), "bench.db"), state.Options{NoSync: true})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = st.Close() })
		inner = assemble.Journal{Store: st}
	}
	j := &timedJournal{j: inner}
	l, v, clock := benchLoop(b, n, j)
	ctx := context.Background()
	if err := l.Cycle(ctx); err != nil { // the first quotes
		b.Fatal(err)
	}
	warmCycles(b, l, v, clock, n)
	t0 := l.Tally()
	j.elapsed = 0
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		clock.Advance(time.Second)
		if moving {
			v.phase ^= 1
		}
		if err := l.Cycle(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	t1 := l.Tally()
	perCycle := float64(t1.Placed-t0.Placed) / float64(b.N)
	switch {
	case t1.CycleErrors != t0.CycleErrors:
		b.Fatalf("%d cycle errors", t1.CycleErrors-t0.CycleErrors)
	case moving && perCycle < float64(4*n):
		b.Fatalf("%.1f orders placed a cycle, want %d: not every order was requoted", perCycle, 4*n)
	case !moving && (t1.Placed != t0.Placed || t1.Cancelled != t0.Cancelled):
		b.Fatalf("%d placed and %d cancelled over still books, want none", t1.Placed-t0.Placed, t1.Cancelled-t0.Cancelled)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n)/1e3, "µs/market")
	b.ReportMetric(perCycle, "orders/cycle")
	b.ReportMetric(float64(j.elapsed.Nanoseconds())/float64(b.N)/float64(n)/1e3, "journal-µs/market")
}

// warmCycles moves the books until a cycle requotes all of the n markets
// (the volatility estimate has learnt the moves and the jump rule's
// cooling has passed), at most maxWarm cycles; it fails the benchmark
// when that does not happen, or a cycle fails.
func warmCycles(b *testing.B, l *loop.Loop, v *memVenue, clock *clocktest.Clock, n int) {
	b.Helper()
	const maxWarm = 120
	for range maxWarm {
		p0 := l.Tally().Placed
		clock.Advance(time.Second)
		v.phase ^= 1
		if err := l.Cycle(context.Background()); err != nil {
			b.Fatal(err)
		}
		if l.Tally().Placed-p0 >= 4*n {
			return
		}
	}
	b.Fatalf("no cycle requoted every market within %d warm-up cycles: %+v", maxWarm, l.Tally())
}

// BenchmarkDaemonRSS200Markets runs the real binary against an in-process
// simulated exchange with 200 markets for 20 s and reports its resident
// memory (VmRSS at the end, VmHWM the peak) from /proc. One op is one such
// run; use -benchtime=1x.
func BenchmarkDaemonRSS200Markets(b *testing.B) {
	bin := needDaemon(b)
	if raceBuild {
		b.Skip("the race detector multiplies memory: run this benchmark without -race")
	}
	for range b.N {
		rss, hwm, cycles := daemonRSS(b, bin, 200, 20*time.Second)
		b.ReportMetric(rss, "MB-rss")
		b.ReportMetric(hwm, "MB-peak")
		b.ReportMetric(float64(cycles), "cycles")
	}
}

func daemonRSS(b *testing.B, bin string, markets int, run time.Duration) (rss, hwm float64, cycles int) {
	b.Helper()
	se := newSimEnv(b, simOptions{seed: 17, markets: markets, fund: "10000000",
		flow: sim.FlowConfig{TakerRate: 0.05, TakerSize: 10}})
	dir := b.TempDir()
	cfg := botConfig{se: se, statePath: filepath.Join(dir, "mmbot.db"), markets: markets, cycle: "1s",
		levels: `[{ offset = "0.01", size = "10" }, { offset = "0.03", size = "20" }]`,
		risk: `max_position = "1000"
max_total_position = "1000000"
max_collateral_at_risk = "1000000"
max_open_orders_total = 1000
max_drawdown = "1000000"`,
	}.write(b, dir)
	p := startDaemon(b, bin, cfg)
	p.mustReady(60 * time.Second)
	if n := len(p.linesWith("quoting")); n < markets*9/10 {
		b.Fatalf("quoting %d markets, want about %d", n, markets)
	}
	time.Sleep(run) // the daemon runs in real time
	rss, hwm = procMemMB(b, p.cmd.Process.Pid)
	p.signal(syscall.SIGTERM)
	if _, ok := p.wait(60 * time.Second); !ok {
		b.Fatalf("daemon did not stop; log:\n%s", p.tail(20))
	}
	out := p.stdout.String()
	if i := strings.Index(out, "markets, "); i >= 0 {
		_, _ = fmt.Sscanf(out[i+len("markets, "):], "%d cycles", &cycles)
	}
	b.Logf("%d markets, %s: VmRSS %.1f MB, VmHWM %.1f MB, %d orders submitted; summary:%s", markets, run, rss, hwm, se.tr.Distinct(), out)
	return rss, hwm, cycles
}

// procMemMB reads VmRSS and VmHWM of a process, in MB.
func procMemMB(b testing.TB, pid int) (rss, hwm float64) {
	b.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		kb, err := strconv.ParseFloat(fields[1], 64)
		if err != nil {
			continue
		}
		switch fields[0] {
		case "VmRSS:":
			rss = kb / 1024
		case "VmHWM:":
			hwm = kb / 1024
		}
	}
	if rss == 0 {
		b.Fatalf("no VmRSS in /proc/%d/status", pid)
	}
	return rss, hwm
}
