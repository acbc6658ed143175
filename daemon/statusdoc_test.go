package daemon

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/daemon/status"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/internal/golden"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy"
	"github.com/mmbot/mmbot/strategy/loop"
)

var updateStatus = flag.Bool("update-status", false, "rewrite the golden files under testdata/status/")

var statusNow = time.Date(2026, 3, 1, 12, 0, 30, 0, time.UTC)

// statusFixture is a daemon's status at statusNow: two markets, one
// quoted with orders, positions, PnL and an old error, one stopped without
// a fair value; the kill switch tripped; rates over a 10 s window.
func statusFixture() statusInput {
	d := decimal.RequireFromString
	at := statusNow.Add(-time.Second)
	st := loop.Status{Time: at, LiveOrders: 3,
		Tally: loop.Tally{Cycles: 30, CycleErrors: 1, Placed: 12, PlaceFailed: 2, Cancelled: 9, CancelFailed: 1, Rejected: 4, Fills: 3,
			RejectedBy: reasons(map[risk.Reason]int{risk.ReasonCooldown: 1, risk.ReasonSelfCross: 3}),
			HeldBack:   reasons(map[risk.Reason]int{risk.ReasonTotalAtRisk: 6, risk.ReasonMarketShares: 2}),
			Volume:     d("25"), Notional: d("12.1"), RealizedPnL: d("0.3"), MarkedPnL: d("-1.25"), LastCycleTime: 3 * time.Millisecond},
		Tripped: true, TripReason: "consecutive_errors: 5 order errors in a row (limit 5)",
		LastError: "read books: exchange: 500 internal error", LastErrorAt: statusNow.Add(-20 * time.Second),
		Markets: []loop.MarketStatus{
			{ConditionID: "0x" + strings.Repeat("ab", 32), Slug: "will-it-rain-in-paris-on-march-2", Fair: 0.5123456, HasFair: true,
				BestBid: d("0.5"), BestAsk: d("0.53"), Position: [2]decimal.Decimal{d("20"), d("5.5")}, Open: 3,
				Orders: []loop.OrderStatus{
					{Hash: "0x01", ExchangeID: "0x01", TokenID: "111", Outcome: strategy.Yes, Side: exchange.Buy, Price: d("0.5"), Size: d("10"),
						Matched: d("2.5"), State: loop.JPartiallyFilled, CreatedAt: statusNow.Add(-10 * time.Second)},
					{Hash: "0x02", ExchangeID: "0x02", TokenID: "111", Outcome: strategy.Yes, Side: exchange.Sell, Price: d("0.53"), Size: d("10"),
						Matched: d("0"), State: loop.JLive, CreatedAt: statusNow.Add(-10 * time.Second)},
					{Hash: "0x03", TokenID: "222", Outcome: strategy.No, Side: exchange.Buy, Price: d("0.46"), Size: d("15"),
						Matched: d("0"), State: loop.JSent, CreatedAt: statusNow.Add(-time.Second)},
				},
				RealizedPnL: d("0.3"), MarkedPnL: d("-1.25"), AtRisk: d("17.3240"), OrdersAtRisk: d("10.65"),
				Rewards: loop.MarketRewards{Pays: true, Share: 0.125, Daily: 12.5, Earned: d("0.0434"),
					Decision: strategy.RewardDecision{Decided: true, Pays: true, Share: 0.125, Income: 12.5, Cost: 1.5, Fills: 20}},
				BookAge: 1500 * time.Millisecond, LastError: "exchange refused 0x04: not enough balance", LastErrorAt: statusNow.Add(-5 * time.Second)},
			{ConditionID: "0x" + strings.Repeat("cd", 32), Position: [2]decimal.Decimal{d("0"), d("0")},
				Stopped: "book unavailable: exchange: not found", LastError: "book unavailable: exchange: not found", LastErrorAt: statusNow.Add(-25 * time.Second),
				RealizedPnL: d("0"), MarkedPnL: d("0"), AtRisk: d("0"), OrdersAtRisk: d("0")},
			{ConditionID: "0x" + strings.Repeat("ef", 32), Slug: "quiet", Fair: 0.25, HasFair: true, Position: [2]decimal.Decimal{d("0"), d("0")},
				RealizedPnL: d("0"), MarkedPnL: d("0"), AtRisk: d("0"), OrdersAtRisk: d("0"), BookAge: 200 * time.Millisecond,
				Limit: "total_collateral_at_risk"},
		},
	}
	buckets := []exchange.BucketSnapshot{
		{Name: "clob_books", Cap: exchange.Cap{Requests: 80, Window: 10 * time.Second}, Burst: 3, RatePerSec: 7.3, Tokens: 3, Admitted: 300},
		{Name: bucketPostBurst, Cap: exchange.Cap{Requests: 2400, Window: 10 * time.Second}, Burst: 114, RatePerSec: 216.6, Tokens: 85.5, Admitted: 14},
		{Name: bucketPostSustained, Cap: exchange.Cap{Requests: 24000, Window: 10 * time.Minute}, Burst: 1140, RatePerSec: 36.1, Tokens: 1128.6, Admitted: 14},
		{Name: bucketDeleteBurst, Cap: exchange.Cap{Requests: 2400, Window: 10 * time.Second}, Burst: 114, RatePerSec: 216.6, Tokens: 114, Admitted: 10},
		{Name: bucketDeleteSustained, Cap: exchange.Cap{Requests: 24000, Window: 10 * time.Minute}, Burst: 1140, RatePerSec: 36.1, Tokens: 1130, Admitted: 10},
	}
	meter := newRateMeter(rateSample{at: statusNow.Add(-30 * time.Second)}, 11*time.Minute)
	meter.add(rateSample{at: statusNow.Add(-20 * time.Second), orders: 4, cancels: 2})
	meter.add(rateSample{at: statusNow.Add(-10 * time.Second), orders: 9, cancels: 6})
	meter.add(rateSample{at: statusNow.Add(-5 * time.Second), orders: 12, cancels: 9})
	return statusInput{Now: statusNow, Started: statusNow.Add(-30 * time.Second), Version: "v1.2.3 (go1.26.8 linux/amd64)", PID: 4242,
		Ready: false, NotReady: "kill switch: consecutive_errors: 5 order errors in a row (limit 5)", Loop: &st,
		Kill: killState{Tripped: true, Trip: risk.Trip{Reason: risk.TripConsecutiveErrors, Detail: "5 order errors in a row (limit 5)", At: statusNow.Add(-3 * time.Second)},
			ResetBy: "SIGUSR1", Cleared: risk.Trip{Reason: risk.TripStaleBook, Detail: "book of all markets is 11s old (max 10s)", At: statusNow.Add(-25 * time.Second)}},
		Buckets: buckets, Base: func(w time.Duration) rateSample { return meter.base(statusNow, w) },
		HTTP429: 0, Retries: 7, CollateralLimit: d("1000")}
}

func reasons(m map[risk.Reason]int) (a [risk.NumReasons]int) {
	for r, n := range m {
		a[r] = n
	}
	return a
}

func statusJSON(t *testing.T, doc status.Status) []byte {
	t.Helper()
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// The status document of a fixed daemon state, field by field, then as a
// whole against the golden file (as GET /status serves it: indented).
func TestStatusDocument(t *testing.T) {
	in := statusFixture()
	doc := buildStatusDoc(&in)
	if doc.SchemaVersion != 1 || doc.Mode != "live" || doc.PID != 4242 || doc.UptimeSeconds != 30 || doc.Ready {
		t.Errorf("header: %+v", doc)
	}
	m := doc.Markets[0]
	if m.Fair == nil || *m.Fair != "0.512346" {
		t.Errorf("fair %v, want the float rounded to 6 decimals, 0.512346", m.Fair)
	}
	if m.Position != (status.Position{Yes: "20", No: "5.5", Net: "14.5"}) {
		t.Errorf("position %+v, want net = yes − no = 14.5", m.Position)
	}
	if m.Collateral != (status.Collateral{InUse: "17.324", Orders: "10.65", Positions: "6.674"}) {
		t.Errorf("collateral %+v, want positions = in use − orders", m.Collateral)
	}
	if len(m.Orders) != 3 || m.Orders[0].Remaining != "7.5" || m.Orders[0].Outcome != "YES" || m.Orders[2].ExchangeID != "" || m.Orders[2].State != "sent" {
		t.Errorf("orders %+v", m.Orders)
	}
	if m.LastError == nil || !m.LastError.At.Equal(statusNow.Add(-5*time.Second)) {
		t.Errorf("last error %+v", m.LastError)
	}
	if s := doc.Markets[1]; s.Fair != nil || s.Bid != nil || s.Ask != nil || s.Orders == nil || len(s.Orders) != 0 {
		t.Errorf("a market without fair value or orders: fair %v bid %v ask %v orders %v, want null, null, null, []", s.Fair, s.Bid, s.Ask, s.Orders)
	}
	if doc.Collateral.InUse != "17.324" || doc.Collateral.Limit == nil || *doc.Collateral.Limit != "1000" {
		t.Errorf("collateral %+v, want the markets' sum and the limit", doc.Collateral)
	}
	if tt := doc.Totals; tt.RiskRejections != 4 || len(tt.RiskRejectionsByReason) != 2 || tt.RiskRejectionsByReason["self_cross"] != 3 ||
		tt.RiskRejectionsByReason["cooldown"] != 1 || tt.HeldBackByLimit["total_collateral_at_risk"] != 6 || tt.HeldBackByLimit["market_position"] != 2 {
		t.Errorf("rejections by reason %v, held back %v", tt.RiskRejectionsByReason, tt.HeldBackByLimit)
	}
	if doc.Markets[2].Limit != "total_collateral_at_risk" || doc.Markets[0].Limit != "" {
		t.Errorf("market limits %q %q", doc.Markets[0].Limit, doc.Markets[2].Limit)
	}
	k := doc.KillSwitch
	if !k.Tripped || k.Reason != "consecutive_errors" || k.Since == nil || k.LastReset == nil || k.LastReset.ClearedReason != "stale_book" ||
		k.LastReset.ClearedSince == nil || !k.LastReset.ClearedSince.Equal(statusNow.Add(-25*time.Second)) {
		t.Errorf("kill switch %+v (last reset %+v)", k, k.LastReset)
	}
	// A reset of an armed switch cleared nothing: no reason, no time.
	if r := killDocOf(killState{ResetBy: "SIGUSR1"}).LastReset; r == nil || r.By != "SIGUSR1" || r.ClearedReason != "" || r.ClearedSince != nil {
		t.Errorf("reset of an armed switch: %+v", r)
	}
	// 14 orders now, 9 at the newest sample 10 s or more ago: 5 in 10 s;
	// the sustained window (10 min) reaches back to the first sample, 30 s ago.
	o := doc.Rates.Orders
	if o.Total != 14 || o.PerSecond != 0.5 || o.WindowSeconds != 10 || len(o.Caps) != 2 {
		t.Fatalf("order rate %+v", o)
	}
	if c := o.Caps[0]; c.Bucket != bucketPostBurst || c.Used != 5 || c.PerSecond != 240 || c.InUseRatio != 0.25 {
		t.Errorf("burst cap %+v", c)
	}
	if c := o.Caps[1]; c.Bucket != bucketPostSustained || c.Used != 14 || c.UsedWindowSeconds != 30 || c.PerSecond != 40 {
		t.Errorf("sustained cap %+v", c)
	}
	if c := doc.Rates.Cancels; c.Total != 10 || c.PerSecond != 0.4 || c.Caps[0].Bucket != bucketDeleteBurst {
		t.Errorf("cancel rate %+v", c)
	}

	golden.Check(t, filepath.Join("testdata", "status", "status.json"), statusJSON(t, doc), *updateStatus)
	var table bytes.Buffer
	if err := doc.WriteTable(&table, time.UTC); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "status", "table.txt"), table.Bytes(), *updateStatus)
	for _, line := range strings.Split(table.String(), "\n") {
		if strings.HasSuffix(line, " ") {
			t.Errorf("table line ends in spaces: %q", line)
		}
	}

	// Before the loop exists (the listener starts first): no market, no cycle.
	early := statusInput{Now: statusNow, Started: statusNow, NotReady: "starting", DryRun: true}
	ed := buildStatusDoc(&early)
	if ed.CycleTime != nil || ed.Markets == nil || len(ed.Markets) != 0 || ed.Mode != "dry_run" || ed.Collateral.InUse != "0" {
		t.Errorf("document before the loop: %+v", ed)
	}
	if b := statusJSON(t, ed); !bytes.Contains(b, []byte(`"markets": []`)) || !bytes.Contains(b, []byte(`"cycle_time": null`)) {
		t.Errorf("document before the loop:\n%s", b)
	}
}

// jsonPaths lists the key paths of a JSON value ("a", "a.b", "a[].c"),
// each with whether its value is an object.
func jsonPaths(prefix string, v any, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			_, isObject := e.(map[string]any)
			out[p] = isObject
			jsonPaths(p, e, out)
		}
	case []any:
		for _, e := range x {
			jsonPaths(prefix+"[]", e, out)
		}
	}
}

// expandAlternatives expands "a.{b,c}.d" into "a.b.d" and "a.c.d".
func expandAlternatives(path string) []string {
	open, end := strings.IndexByte(path, '{'), strings.IndexByte(path, '}')
	if open < 0 || end < open {
		return []string{path}
	}
	var out []string
	for _, alt := range strings.Split(path[open+1:end], ",") {
		out = append(out, expandAlternatives(path[:open]+alt+path[end+1:])...)
	}
	return out
}

// Every field of the document has a row in the field table of
// docs/operations.md (objects may go without one: their fields have
// theirs), and the table names no field that the document lacks.
func TestStatusFieldsDocumented(t *testing.T) {
	in := statusFixture()
	var v any
	if err := json.Unmarshal(statusJSON(t, buildStatusDoc(&in)), &v); err != nil {
		t.Fatal(err)
	}
	fields := map[string]bool{}
	jsonPaths("", v, fields)
	text, err := os.ReadFile(filepath.Join("..", "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(text), "## Status of a running daemon")
	if !ok {
		t.Fatal(`docs/operations.md has no "## Status of a running daemon" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_0-9.\\[\\]{},]+)`").FindAllStringSubmatch(section, -1) {
		for _, p := range expandAlternatives(m[1]) {
			documented[p] = true
		}
	}
	// Objects keyed by reason name: their keys are data, not fields.
	byReason := regexp.MustCompile(`^totals\.(risk_rejections_by_reason|held_back_by_limit)\.`)
	var missing, extra []string
	for f, isObject := range fields {
		if !documented[f] && !isObject && !byReason.MatchString(f) {
			missing = append(missing, f)
		}
	}
	for f := range documented {
		if _, ok := fields[f]; !ok {
			extra = append(extra, f)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 {
		t.Errorf("fields without a row in docs/operations.md's field table: %s", strings.Join(missing, ", "))
	}
	if len(extra) > 0 {
		t.Errorf("docs/operations.md describes fields the document does not have: %s", strings.Join(extra, ", "))
	}
	if len(documented) < 50 {
		t.Errorf("only %d documented fields found: is the table's format what this test reads?", len(documented))
	}
}

// The rate meter keeps samples at least a second apart for its keep
// duration, plus the newest older one; a window starts at the newest sample
// at or before its start, else at the oldest kept.
func TestStatusRateMeter(t *testing.T) {
	t0 := statusNow
	m := newRateMeter(rateSample{at: t0}, 30*time.Second)
	for i := 1; i <= 100; i++ { // a cycle every 500 ms for 50 s
		m.add(rateSample{at: t0.Add(time.Duration(i) * 500 * time.Millisecond), orders: uint64(i), cancels: uint64(2 * i)})
	}
	now := t0.Add(50 * time.Second)
	if n := len(m.samples); n < 30 || n > 32 {
		t.Errorf("%d samples kept for 30 s at a 1 s spacing", n)
	}
	for i := 1; i < len(m.samples); i++ {
		if gap := m.samples[i].at.Sub(m.samples[i-1].at); gap < time.Second {
			t.Errorf("samples %d and %d only %s apart", i-1, i, gap)
		}
	}
	if b := m.base(now, 10*time.Second); !b.at.Equal(t0.Add(40*time.Second)) || b.orders != 80 || b.cancels != 160 {
		t.Errorf("base of the last 10 s: %+v, want the sample at 40 s", b)
	}
	if b := m.base(now, 10500*time.Millisecond); !b.at.Equal(t0.Add(39 * time.Second)) {
		t.Errorf("base of the last 10.5 s: %s, want the newest sample at or before 39.5 s (39 s)", b.at.Sub(t0))
	}
	// Longer than kept: the oldest sample kept, the one at or before 20 s.
	if b := m.base(now, time.Hour); !b.at.Equal(t0.Add(20 * time.Second)) {
		t.Errorf("base of an hour: %s, want 20 s (the first sample dropped is older)", b.at.Sub(t0))
	}
	young := newRateMeter(rateSample{at: t0}, time.Minute)
	if b := young.base(t0.Add(3*time.Second), 10*time.Second); !b.at.Equal(t0) {
		t.Errorf("a meter younger than the window starts it at its first sample, got %s", b.at)
	}
}
