package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/daemon/status"
	"github.com/mmbot/mmbot/exchange/sim"
)

// listenAddr returns the daemon's metrics listener from its log.
func listenAddr(t *testing.T, p *daemonProc) string {
	t.Helper()
	l, ok := p.waitMsg(5*time.Second, "metrics, /healthz and /readyz")
	if !ok {
		t.Fatalf("no metrics listen line; log:\n%s", p.tail(20))
	}
	return strings.TrimPrefix(l.str("listen"), "http://")
}

// statusOf runs `mmbot status --json` with args and decodes the document.
func statusOf(t *testing.T, args ...string) status.Status {
	t.Helper()
	code, out, errOut := runCLI(t, nil, append([]string{"status", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("mmbot status %q: exit %d: %s", args, code, errOut)
	}
	var d status.Status
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("mmbot status %q printed no status document: %v\n%s", args, err, out)
	}
	return d
}

// orderKeys lists a document's orders as "hash state matched", sorted.
func orderKeys(d *status.Status) []string {
	var out []string
	for _, m := range d.Markets {
		for _, o := range m.Orders {
			out = append(out, strings.ToLower(o.Hash)+" "+o.State+" "+o.Matched)
		}
	}
	sort.Strings(out)
	return out
}

// positionKeys lists a document's positions.
func positionKeys(d *status.Status) []string {
	var out []string
	for _, m := range d.Markets {
		out = append(out, m.ConditionID+" "+m.Position.Yes+" "+m.Position.No)
	}
	return out
}

func ptrDec(t *testing.T, what string, s *string) decimal.Decimal {
	t.Helper()
	if s == nil {
		t.Fatalf("%s is null", what)
	}
	return decOf(*s)
}

// mmbot status against the real daemon trading on the simulated exchange:
// once the exchange stands still, the document's markets, fair values,
// positions and open orders agree with the journal and the exchange, its
// sums with its parts; the table shows every market; GET /status serves
// the document's fields; -c finds the daemon through metrics.listen.
func TestStatusOfRunningDaemon(t *testing.T) {
	t.Parallel()
	bin := needDaemon(t)
	se := newSimEnv(t, simOptions{seed: 33, markets: 6,
		flow: sim.FlowConfig{TakerRate: 2, TakerSize: 12, Informed: 0.2, Volatility: 0.5}})
	dir := t.TempDir()
	statePath := filepath.Join(dir, "mmbot.db")
	// Books do not age while the exchange is paused below: a generous
	// max_book_age keeps the markets quoted and the kill switch armed.
	// the adverse-selection rules off: a pull after the last print would
	// leave a market without orders, and this test wants every market quoted
	cfg := botConfig{se: se, statePath: statePath, markets: 3, cycle: "200ms",
		levels: `[{ offset = "0.01", size = "15" }, { offset = "0.02", size = "20" }]`,
		risk:   "max_book_age = \"10m\"\ncooldown = \"0s\"", strategy: "adverse = { enabled = false }"}.write(t, dir)
	p := startDaemon(t, bin, cfg)
	p.mustReady(30 * time.Second)
	addr := listenAddr(t, p)
	markets := quotedMarkets(t, p, se.ex)

	waitFor(t, 30*time.Second, "positions in two tokens", func() bool { return len(se.shares(t)) >= 2 })
	se.clock.pause() // no flow, no fill: the daemon's quotes settle

	// Two documents some cycles apart with the same orders and positions:
	// the journal read between them is what they show.
	var doc status.Status
	var jv journalView
	var open []string
	for deadline := time.Now().Add(30 * time.Second); ; {
		a := statusOf(t, "--addr", addr)
		jv = readJournal(t, statePath)
		open = se.ex.OpenOrders(se.acct.APIKey)
		time.Sleep(500 * time.Millisecond)
		doc = statusOf(t, "--addr", addr)
		if doc.Cycles > a.Cycles+1 && slices.Equal(orderKeys(&a), orderKeys(&doc)) && slices.Equal(positionKeys(&a), positionKeys(&doc)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon's orders did not settle in 30 s with the exchange paused; last:\n%v\n%v", orderKeys(&a), orderKeys(&doc))
		}
	}

	if doc.SchemaVersion != status.Schema || doc.Mode != "live" || !doc.Ready || doc.KillSwitch.Tripped || doc.PID != p.cmd.Process.Pid {
		t.Errorf("header: schema %d mode %s ready %v (%s) tripped %v pid %d (daemon %d)", doc.SchemaVersion, doc.Mode, doc.Ready, doc.NotReady,
			doc.KillSwitch.Tripped, doc.PID, p.cmd.Process.Pid)
	}
	if doc.CycleTime == nil || doc.Time.Sub(*doc.CycleTime) > 5*time.Second {
		t.Errorf("cycle time %v, document time %s", doc.CycleTime, doc.Time)
	}

	// The configured markets, each with a fair value inside our quotes.
	if len(doc.Markets) != len(markets) {
		t.Fatalf("%d markets in the status, the daemon quotes %d", len(doc.Markets), len(markets))
	}
	journalOrders := map[string]bool{}
	for h := range jv.nonFinal {
		journalOrders[h] = true
	}
	exchangeOrders := map[string]bool{}
	for _, id := range open {
		exchangeOrders[strings.ToLower(id)] = true
	}
	seen := map[string]bool{}
	shares := se.shares(t)
	sumMarked, sumCollateral, held := decimal.Zero, decimal.Zero, 0
	for _, m := range doc.Markets {
		tokens, ok := markets[strings.ToLower(m.ConditionID)]
		if !ok {
			t.Errorf("market %s is not one the daemon logged as quoted", m.ConditionID)
			continue
		}
		fair := ptrDec(t, "fair of "+m.Slug, m.Fair)
		if !fair.IsPositive() || !fair.LessThan(decimal.NewFromInt(1)) {
			t.Errorf("%s: fair %s outside (0, 1)", m.Slug, fair)
		}
		// Our best bid and ask as the listed orders give them, in YES space.
		var bid, ask decimal.Decimal
		buyNotional := decimal.Zero
		for _, o := range m.Orders {
			h := strings.ToLower(o.Hash)
			seen[h] = true
			jo, ok := jv.nonFinal[h]
			switch {
			case !ok:
				t.Errorf("%s: order %s… (%s) is not open in the journal", m.Slug, short(h), o.State)
			case !jo.Price.Equal(decOf(o.Price)) || !jo.Size.Equal(decOf(o.Size)) || string(jo.Side) != o.Side || string(jo.State) != o.State ||
				!jo.SizeMatched.Equal(decOf(o.Matched)):
				t.Errorf("%s: order %s… status %s %s@%s %s matched %s; journal %s %s@%s %s matched %s", m.Slug, short(h),
					o.Side, o.Size, o.Price, o.State, o.Matched, jo.Side, jo.Size, jo.Price, jo.State, jo.SizeMatched)
			}
			if !exchangeOrders[h] {
				t.Errorf("%s: order %s… is not live on the exchange", m.Slug, short(h))
			}
			price := decOf(o.Price)
			yes, isBid := price, o.Side == "BUY"
			if o.Outcome == "NO" {
				yes, isBid = decimal.NewFromInt(1).Sub(price), !isBid
			}
			if isBid && yes.GreaterThan(bid) {
				bid = yes
			}
			if !isBid && (ask.IsZero() || yes.LessThan(ask)) {
				ask = yes
			}
			if o.Side == "BUY" {
				buyNotional = buyNotional.Add(price.Mul(decOf(o.Remaining)))
			}
		}
		if m.OpenOrders != len(m.Orders) || len(m.Orders) == 0 {
			t.Errorf("%s: open_orders %d, %d listed", m.Slug, m.OpenOrders, len(m.Orders))
		}
		if b := ptrDec(t, "bid of "+m.Slug, m.Bid); !b.Equal(bid) || !b.LessThan(fair) {
			t.Errorf("%s: bid %s, the orders' best bid %s, fair %s", m.Slug, b, bid, fair)
		}
		if a := ptrDec(t, "ask of "+m.Slug, m.Ask); !a.Equal(ask) || !a.GreaterThan(fair) {
			t.Errorf("%s: ask %s, the orders' best ask %s, fair %s", m.Slug, a, ask, fair)
		}
		// Positions: the journal's and the exchange's.
		yes, no := decOf(m.Position.Yes), decOf(m.Position.No)
		if !yes.Equal(jv.positions[tokens[0]]) || !no.Equal(jv.positions[tokens[1]]) || !yes.Equal(shares[tokens[0]]) || !no.Equal(shares[tokens[1]]) {
			t.Errorf("%s: position %s YES %s NO; journal %s %s; exchange %s %s", m.Slug, yes, no,
				jv.positions[tokens[0]], jv.positions[tokens[1]], shares[tokens[0]], shares[tokens[1]])
		}
		if !decOf(m.Position.Net).Equal(yes.Sub(no)) {
			t.Errorf("%s: net %s, want %s − %s", m.Slug, m.Position.Net, yes, no)
		}
		if !yes.IsZero() || !no.IsZero() {
			held++
		}
		// Collateral: the BUY orders' remaining notional, and the unpaired
		// position at the fair value (to the micro-unit the risk checks round to).
		if c := decOf(m.Collateral.Orders); !c.Equal(buyNotional) {
			t.Errorf("%s: collateral of the orders %s, their BUY notional %s", m.Slug, c, buyNotional)
		}
		pair := decimal.Min(yes, no)
		want := yes.Sub(pair).Mul(fair).Add(no.Sub(pair).Mul(decimal.NewFromInt(1).Sub(fair)))
		if diff := decOf(m.Collateral.Positions).Sub(want).Abs(); diff.GreaterThan(decimal.New(1, -5)) {
			t.Errorf("%s: collateral of the position %s, want about %s", m.Slug, m.Collateral.Positions, want)
		}
		if !decOf(m.Collateral.InUse).Equal(decOf(m.Collateral.Orders).Add(decOf(m.Collateral.Positions))) {
			t.Errorf("%s: collateral %+v: in use is not orders + positions", m.Slug, m.Collateral)
		}
		sumMarked = sumMarked.Add(decOf(m.PnL.Marked))
		sumCollateral = sumCollateral.Add(decOf(m.Collateral.InUse))
	}
	for h := range journalOrders {
		if !seen[h] {
			t.Errorf("journal order %s… (%s) is not in the status", short(h), jv.nonFinal[h].State)
		}
	}
	if len(open) != len(seen) {
		t.Errorf("%d orders live on the exchange, %d in the status", len(open), len(seen))
	}
	if held == 0 {
		t.Errorf("no market holds a position after fills: the position checks proved nothing")
	}
	t.Logf("%d markets, %d orders (journal %d, exchange %d), %d markets with a position, %d fills, collateral %s, pnl %s marked",
		len(doc.Markets), len(seen), len(journalOrders), len(open), held, doc.Totals.Fills, doc.Collateral.InUse, doc.Totals.MarkedPnL)
	if doc.Totals.LiveOrders != len(seen) || !decOf(doc.Totals.MarkedPnL).Equal(sumMarked) || !decOf(doc.Collateral.InUse).Equal(sumCollateral) {
		t.Errorf("totals: live orders %d (listed %d), marked %s (markets' sum %s), collateral %s (markets' sum %s)",
			doc.Totals.LiveOrders, len(seen), doc.Totals.MarkedPnL, sumMarked, doc.Collateral.InUse, sumCollateral)
	}
	if doc.Totals.Fills == 0 || len(jv.fills) < doc.Totals.Fills {
		t.Errorf("totals: %d fills, the journal has %d", doc.Totals.Fills, len(jv.fills))
	}
	if doc.Collateral.Limit == nil || *doc.Collateral.Limit != "1000" {
		t.Errorf("collateral limit %v, want the default risk.max_collateral_at_risk 1000", doc.Collateral.Limit)
	}

	// Rates against the default caps (no [exchange.limits] in the config).
	o := doc.Rates.Orders
	if o.Total < uint64(se.tr.Distinct()) || len(o.Caps) != 2 || o.Caps[0].Bucket != "post_order_burst" || o.Caps[0].Requests != 2400 ||
		o.Caps[1].Used != o.Total || o.Caps[0].Used > uint64(o.Caps[0].Requests) {
		t.Errorf("order rates %+v; the exchange saw %d distinct orders", o, se.tr.Distinct())
	}
	if c := doc.Rates.Cancels; len(c.Caps) != 2 || c.Caps[0].Bucket != "delete_order_burst" || c.Total < uint64(doc.Totals.Cancels) {
		t.Errorf("cancel rates %+v with %d cancels confirmed", c, doc.Totals.Cancels)
	}

	// The table: a row per market with its fair value and position.
	code, table, errOut := runCLI(t, nil, "status", "--addr", addr, "--table")
	if code != 0 || !strings.HasPrefix(table, "mmbot ") || !strings.Contains(table, "\nMARKET ") || !strings.Contains(table, "\nkill switch: armed\n") {
		t.Fatalf("--table: exit %d, stderr %q:\n%s", code, errOut, table)
	}
	for _, m := range doc.Markets {
		row := ""
		for _, l := range strings.Split(table, "\n") {
			if strings.HasPrefix(l, status.Trunc(m.Slug, 28)+" ") {
				row = l
			}
		}
		if f := strings.Fields(row); len(f) < 8 || f[1] != *m.Fair || f[4] != m.Position.Yes || f[5] != m.Position.No {
			t.Errorf("no row for %s with fair %s and position %s/%s in the table:\n%s", m.Slug, *m.Fair, m.Position.Yes, m.Position.No, table)
		}
	}

	// GET /status itself: JSON with every field of the document.
	resp, err := http.Get("http://" + addr + "/status")
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	err = json.NewDecoder(resp.Body).Decode(&raw)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET /status: %d %s: %v", resp.StatusCode, resp.Header.Get("Content-Type"), err)
	}
	var want map[string]any
	if err := json.Unmarshal(goldenStatus(t), &want); err != nil {
		t.Fatal(err)
	}
	keysOf := func(m map[string]any) []string {
		var k []string
		for key := range m {
			k = append(k, key)
		}
		sort.Strings(k)
		return k
	}
	if got, exp := keysOf(raw), keysOf(want); !slices.Equal(got, exp) {
		t.Errorf("GET /status fields %v, want %v", got, exp)
	}
	m0, _ := raw["markets"].([]any)
	w0, _ := want["markets"].([]any)
	if len(m0) == 0 || !slices.Equal(keysOf(m0[0].(map[string]any)), keysOf(w0[0].(map[string]any))) {
		t.Errorf("GET /status market fields differ from the document's: %v", m0)
	}

	// -c: the address is metrics.listen of the file.
	other := filepath.Join(t.TempDir(), "status.toml")
	if err := os.WriteFile(other, []byte(fmt.Sprintf("[metrics]\nlisten = %q\n", addr)), 0o600); err != nil {
		t.Fatal(err)
	}
	if d := statusOf(t, "-c", other); d.PID != doc.PID || len(d.Markets) != len(doc.Markets) {
		t.Errorf("status -c: pid %d, %d markets; want %d, %d", d.PID, len(d.Markets), doc.PID, len(doc.Markets))
	}

	se.clock.resume()
	p.signal(syscall.SIGTERM)
	if ws, ok := p.wait(40 * time.Second); !ok || ws.ExitStatus() != 0 {
		t.Fatalf("exit after SIGTERM: %v (ok %v); log:\n%s", ws, ok, p.tail(20))
	}
	// After the daemon: the one line.
	code, _, errOut = runCLI(t, nil, "status", "--addr", addr)
	if code != 1 || !strings.HasPrefix(errOut, "mmbot status: no daemon answers at "+addr+" (connection refused)") {
		t.Errorf("after the daemon stopped: exit %d, %q", code, errOut)
	}
}

// The kill switch in the status: armed; tripped, with its reason, once
// every order call fails; armed again after SIGUSR1, naming the trip it
// cleared.
func TestStatusKillSwitch(t *testing.T) {
	t.Parallel()
	bin := needDaemon(t)
	se := newSimEnv(t, simOptions{seed: 9, markets: 4,
		flow: sim.FlowConfig{TakerRate: 1, TakerSize: 10, Volatility: 3, Informed: 0.2, MakerRequote: time.Second}})
	dir := t.TempDir()
	cfg := botConfig{se: se, statePath: filepath.Join(dir, "mmbot.db"), markets: 2, cycle: "200ms",
		strategy: "price_tolerance_ticks = 0",
		risk:     "max_consecutive_errors = 3\ncooldown = \"0s\"\nauto_clear_after = \"0s\""}.write(t, dir)
	p := startDaemon(t, bin, cfg)
	p.mustReady(30 * time.Second)
	addr := listenAddr(t, p)
	waitFor(t, 10*time.Second, "live orders", func() bool { return len(se.ex.OpenOrders(se.acct.APIKey)) > 0 })
	if d := statusOf(t, "--addr", addr); d.KillSwitch.Tripped || d.KillSwitch.LastReset != nil || d.KillSwitch.Since != nil || !d.Ready {
		t.Fatalf("kill switch before any fault: %+v, ready %v", d.KillSwitch, d.Ready)
	}

	start := time.Now()
	if err := se.ex.SetFaults(sim.Faults{MaintenanceFrom: start, MaintenanceUntil: start.Add(time.Hour), MaintenanceStatus: 500}); err != nil {
		t.Fatal(err)
	}
	if _, ok := p.waitMsg(30*time.Second, "kill switch tripped: cancelling every order and stopping quotes"); !ok {
		t.Fatalf("kill switch did not trip within 30 s of maintenance; log:\n%s", p.tail(30))
	}
	var d status.Status
	waitFor(t, 5*time.Second, "the status to say not ready", func() bool { d = statusOf(t, "--addr", addr); return !d.Ready })
	k := d.KillSwitch
	if !k.Tripped || k.Reason != "consecutive_errors" || !strings.Contains(k.Detail, "in a row") || k.Since == nil || k.Since.Before(start.Add(-time.Second)) {
		t.Errorf("kill switch after the trip: %+v", k)
	}
	if !strings.HasPrefix(d.NotReady, "kill switch: consecutive_errors") {
		t.Errorf("not ready %q, want the kill switch's reason", d.NotReady)
	}
	errored := 0
	var example *status.Error
	for _, m := range d.Markets {
		if m.LastError != nil && !m.LastError.At.Before(start.Add(-time.Second)) {
			errored++
			example = m.LastError
		}
	}
	if errored == 0 {
		t.Errorf("no market reports an error since the maintenance began: %+v", d.Markets)
	}
	t.Logf("tripped %s after maintenance began: %s: %s; %d markets report an error, e.g. %+v", k.Since.Sub(start).Round(time.Millisecond),
		k.Reason, k.Detail, errored, example)
	code, table, _ := runCLI(t, nil, "status", "--addr", addr, "--table")
	if want := "KILL SWITCH TRIPPED since "; code != 0 || !strings.Contains(table, want) || !strings.Contains(table, "consecutive_errors: ") ||
		!strings.Contains(table, fmt.Sprintf("kill -USR1 %d", p.cmd.Process.Pid)) {
		t.Errorf("table while tripped (exit %d):\n%s", code, table)
	}

	if err := se.ex.SetFaults(sim.Faults{}); err != nil {
		t.Fatal(err)
	}
	p.signal(syscall.SIGUSR1)
	if _, ok := p.waitMsg(10*time.Second, "kill switch reset by operator"); !ok {
		t.Fatalf("SIGUSR1 did not reset the kill switch; log:\n%s", p.tail(20))
	}
	waitFor(t, 10*time.Second, "the status to say ready again", func() bool { d = statusOf(t, "--addr", addr); return d.Ready })
	k = d.KillSwitch
	if k.Tripped || k.Reason != "" || k.Since != nil || k.LastReset == nil || k.LastReset.By != "SIGUSR1" ||
		k.LastReset.ClearedReason != "consecutive_errors" || k.LastReset.ClearedSince == nil || k.LastReset.ClearedSince.Before(start.Add(-time.Second)) {
		t.Errorf("kill switch after SIGUSR1: %+v (last reset %+v)", k, k.LastReset)
	}
	if _, table, _ := runCLI(t, nil, "status", "--addr", addr, "--table"); !strings.Contains(table, "\nkill switch: armed (last reset by SIGUSR1, cleared consecutive_errors)\n") {
		t.Errorf("table after the reset:\n%s", table)
	}

	p.signal(syscall.SIGTERM)
	if ws, ok := p.wait(40 * time.Second); !ok || ws.ExitStatus() != 0 {
		t.Fatalf("exit after SIGTERM: %v (ok %v); log:\n%s", ws, ok, p.tail(20))
	}
}
