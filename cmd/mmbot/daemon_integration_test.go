package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange/sim"
	"github.com/mmbot/mmbot/state"
)

// sessionLimits are the tight risk limits of the session test; the bands
// below (15 and 20 shares a level, both tokens) would break every one of
// them without the pre-trade checks.
var sessionLimits = struct {
	maxPosition, maxTotal, maxSize, maxNotional decimal.Decimal
	openMarket, openTotal                       int
}{dec("35"), dec("50"), dec("20"), dec("15"), 3, 10}

func sessionRisk() string {
	l := sessionLimits
	return fmt.Sprintf(`max_position = "%s"
max_total_position = "%s"
max_order_size = "%s"
max_order_notional = "%s"
max_open_orders_market = %d
max_open_orders_total = %d
cooldown = "1s"`, l.maxPosition, l.maxTotal, l.maxSize, l.maxNotional, l.openMarket, l.openTotal)
}

// quotedMarkets maps the condition ids the daemon logged as quoted to their
// two token ids.
func quotedMarkets(t testing.TB, p *daemonProc, ex *sim.Exchange) map[string][2]string {
	t.Helper()
	tokens := map[string][2]string{}
	for _, m := range ex.Catalog().Markets {
		tokens[strings.ToLower(m.ConditionID)] = m.TokenIDs
	}
	out := map[string][2]string{}
	for _, l := range p.linesWith("quoting") {
		id := strings.ToLower(l.str("market"))
		tk, ok := tokens[id]
		if !ok {
			t.Fatalf("daemon quotes %s, which the exchange does not list", id)
		}
		out[id] = tk
	}
	if len(out) == 0 {
		t.Fatalf("daemon quotes no market; log:\n%s", p.tail(30))
	}
	return out
}

// netPositions returns |YES − NO| per market and their sum, from shares by
// token: the directional position the max_position limit bounds.
func netPositions(markets map[string][2]string, shares map[string]decimal.Decimal) (map[string]decimal.Decimal, decimal.Decimal) {
	out := map[string]decimal.Decimal{}
	total := decimal.Zero
	for id, tk := range markets {
		n := shares[tk[0]].Sub(shares[tk[1]]).Abs()
		out[id] = n
		total = total.Add(n)
	}
	return out, total
}

// TestDaemonSession runs a full session of the real binary against the
// simulated exchange with busy order flow and tight risk limits: it must
// quote, get filled, book positions, stay inside every limit at every
// sample (exchange balances and open orders every 50 ms, the journal every
// 500 ms), and on SIGTERM exit 0 leaving no live order, no non-final
// journal order, and journal positions equal to the exchange's balances.
func TestDaemonSession(t *testing.T) {
	t.Parallel()
	bin := needDaemon(t)
	se := newSimEnv(t, simOptions{seed: 21, markets: 8,
		flow: sim.FlowConfig{TakerRate: 2, TakerSize: 12, Informed: 0.2, Volatility: 0.5}})
	dir := t.TempDir()
	statePath := filepath.Join(dir, "mmbot.db")
	cfg := botConfig{se: se, statePath: statePath, markets: 4, cycle: "200ms", risk: sessionRisk(),
		levels: `[{ offset = "0.01", size = "15" }, { offset = "0.02", size = "20" }]`}.write(t, dir)
	p := startDaemon(t, bin, cfg)
	p.mustReady(30 * time.Second)
	markets := quotedMarkets(t, p, se.ex)
	if len(markets) != 4 {
		t.Fatalf("quoting %d markets, want 4", len(markets))
	}
	lim := sessionLimits

	const session = 20 * time.Second
	var maxNet, maxTotal decimal.Decimal
	maxOpenMarket, maxOpenTotal, samples := 0, 0, 0
	journalSamples := 0
	end := time.Now().Add(session)
	nextJournal := time.Now()
	for time.Now().Before(end) {
		if p.exited() {
			t.Fatalf("daemon exited during the session; log:\n%s", p.tail(40))
		}
		samples++
		nets, total := netPositions(markets, se.shares(t))
		for id, n := range nets {
			if n.GreaterThan(lim.maxPosition) {
				t.Errorf("exchange: market %s… net position %s > max_position %s", short(id), n, lim.maxPosition)
			}
			maxNet = decimal.Max(maxNet, n)
		}
		if total.GreaterThan(lim.maxTotal) {
			t.Errorf("exchange: total net position %s > max_total_position %s", total, lim.maxTotal)
		}
		maxTotal = decimal.Max(maxTotal, total)
		open, byMarket := 0, se.ex.OpenOrdersByMarket(se.acct.APIKey)
		for id, n := range byMarket {
			if n > lim.openMarket {
				t.Errorf("exchange: %d open orders in market %s… > max_open_orders_market %d", n, short(id), lim.openMarket)
			}
			maxOpenMarket = max(maxOpenMarket, n)
			open += n
		}
		if open > lim.openTotal {
			t.Errorf("exchange: %d open orders > max_open_orders_total %d", open, lim.openTotal)
		}
		maxOpenTotal = max(maxOpenTotal, open)
		if time.Now().After(nextJournal) {
			journalSamples++
			checkJournalLimits(t, readJournal(t, statePath), markets)
			nextJournal = time.Now().Add(500 * time.Millisecond)
		}
		if t.Failed() {
			t.Fatalf("limit broken; log tail:\n%s", p.tail(30))
		}
		time.Sleep(50 * time.Millisecond) // sampling period of a real-time process
	}
	t.Logf("%d samples (%d of the journal): max net position %s (limit %s), max total %s (limit %s), max open per market %d (limit %d), total %d (limit %d)",
		samples, journalSamples, maxNet, lim.maxPosition, maxTotal, lim.maxTotal, maxOpenMarket, lim.openMarket, maxOpenTotal, lim.openTotal)
	checkDaemonMetrics(t, p, 100, 10) // risk.max_drawdown and max_book_age: the defaults

	p.signal(syscall.SIGTERM)
	ws, ok := p.wait(40 * time.Second)
	if !ok {
		t.Fatalf("daemon still running 40 s after SIGTERM; log:\n%s", p.tail(30))
	}
	if !ws.Exited() || ws.ExitStatus() != 0 {
		t.Fatalf("daemon ended with %v, want exit 0; log:\n%s", ws, p.tail(30))
	}
	if _, ok := p.waitMsg(0, "stopped: no live orders"); !ok {
		t.Errorf("no \"stopped: no live orders\" line; log:\n%s", p.tail(20))
	}
	out := p.stdout.String()
	if !strings.Contains(out, "live orders left 0") {
		t.Errorf("summary does not report zero live orders:\n%s", out)
	}
	// The limits were reached, not merely respected by a quiet session: the
	// planner held quotes back to stay within them (it sizes quotes within
	// the limits, so they are not refused).
	if !regexp.MustCompile(`quotes held back by limits .*(market_position|total_position|collateral_at_risk|order_size|order_notional)`).MatchString(out) {
		t.Errorf("no quote held back by a limit in a session with tight limits; summary:\n%s", out)
	}
	if m := regexp.MustCompile(`risk rejections \d+ \(([^)]*)\)`).FindStringSubmatch(out); m != nil &&
		regexp.MustCompile(`market_position|total_position|collateral_at_risk|sell_exceeds_position`).MatchString(m[1]) {
		t.Errorf("orders refused for a limit the planner sizes within: %s", m[1])
	}

	se.clock.pause() // nothing moves from here on
	if left := se.ex.OpenOrders(se.acct.APIKey); len(left) > 0 {
		t.Errorf("%d orders still live on the exchange after SIGTERM: %v", len(left), left)
	}
	jv := readJournal(t, statePath)
	if len(jv.nonFinal) > 0 {
		for h, o := range jv.nonFinal {
			t.Errorf("journal order %s… still %s after shutdown", short(h), o.State)
		}
	}
	exShares := se.shares(t)
	for _, d := range diffPositions(jv.positions, exShares) {
		t.Errorf("positions differ: %s", d)
	}
	checkJournalLimits(t, jv, markets)
	if d := se.tr.Duplicates(); len(d) > 0 {
		t.Errorf("orders submitted more than once: %v", d)
	}

	// The session really traded: orders accepted, fills booked, positions held.
	placed := 0
	for _, r := range se.ex.RequestLog() {
		if r.Method == http.MethodPost && r.Path == "/clob/orders" && r.Status == http.StatusOK {
			placed++
		}
		if r.Status == http.StatusTooManyRequests {
			t.Errorf("the exchange throttled %s %s", r.Method, r.Path)
		}
	}
	if placed == 0 || se.tr.Distinct() == 0 {
		t.Fatalf("no order was placed")
	}
	if len(jv.fills) == 0 || len(exShares) == 0 {
		t.Fatalf("no fill in %s (journal fills %d, exchange positions %v)", session, len(jv.fills), exShares)
	}
	_, total := netPositions(markets, exShares)
	t.Logf("%d orders in %d POST /orders, %d fills, final net position %s over %d tokens",
		se.tr.Distinct(), placed, len(jv.fills), total, len(exShares))
}

// checkJournalLimits checks what the journal says against the session's
// limits: every order within the size and notional caps, net position per
// market and in total, and the orders the exchange may hold (sent, live,
// partially filled) per market and in total.
func checkJournalLimits(t *testing.T, jv journalView, markets map[string][2]string) {
	t.Helper()
	lim := sessionLimits
	nets, total := netPositions(markets, jv.positions)
	for id, n := range nets {
		if n.GreaterThan(lim.maxPosition) {
			t.Errorf("journal: market %s… net position %s > max_position %s", short(id), n, lim.maxPosition)
		}
	}
	if total.GreaterThan(lim.maxTotal) {
		t.Errorf("journal: total net position %s > max_total_position %s", total, lim.maxTotal)
	}
	open := map[string]int{}
	n := 0
	for _, o := range jv.all {
		if o.Size.GreaterThan(lim.maxSize) {
			t.Errorf("journal: order %s… of %s shares > max_order_size %s", short(o.Hash), o.Size, lim.maxSize)
		}
		if v := o.Size.Mul(o.Price); v.GreaterThan(lim.maxNotional) {
			t.Errorf("journal: order %s… of notional %s > max_order_notional %s", short(o.Hash), v, lim.maxNotional)
		}
		switch o.State {
		case state.Sent, state.Live, state.PartiallyFilled:
			open[strings.ToLower(o.ConditionID)]++
			n++
		}
	}
	for id, c := range open {
		if c > lim.openMarket {
			t.Errorf("journal: %d open orders in market %s… > max_open_orders_market %d", c, short(id), lim.openMarket)
		}
	}
	if n > lim.openTotal {
		t.Errorf("journal: %d open orders > max_open_orders_total %d", n, lim.openTotal)
	}
}
