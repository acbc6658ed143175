package sim

import (
	"errors"
	"math"
	"net/url"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

func TestSlidingWindowExact(t *testing.T) {
	lim := exchange.DefaultLimits()
	lim.CLOBBooks = exchange.Cap{Requests: 3, Window: 10 * time.Second}
	l := newLimiter(lim, true)
	t0 := time.Unix(1_000_000, 0)
	costs := requestCosts("clob", "POST", "/books")
	steps := []struct {
		at       time.Duration
		ok       bool
		wantWait time.Duration
	}{
		{0, true, 0},
		{time.Second, true, 0},
		{2 * time.Second, true, 0},
		{3 * time.Second, false, 7*time.Second + 1},  // the first leaves after t0+10s
		{10 * time.Second, false, 1},                 // closed window: t0 still counts at t0+10s
		{10*time.Second + 1, true, 0},                // now it has left
		{10*time.Second + 2, false, time.Second - 1}, // t0+1s leaves after t0+11s
		{11*time.Second + 1, true, 0},
	}
	for i, s := range steps {
		ok, wait := l.admit("ip", costs, t0.Add(s.at))
		if ok != s.ok || wait != s.wantWait {
			t.Fatalf("step %d at %s: ok %v wait %s, want %v %s", i, s.at, ok, wait, s.ok, s.wantWait)
		}
	}
	// another client has its own windows
	if ok, _ := l.admit("other", costs, t0.Add(3*time.Second)); !ok {
		t.Error("a second client was throttled by the first's usage")
	}
	// per-item costs: 2400 burst
	ok, _ := l.admit("ip", orderCosts(2400), t0)
	if !ok {
		t.Fatal("2400 orders at once refused")
	}
	if ok, wait := l.admit("ip", orderCosts(1), t0.Add(time.Second)); ok || wait != 9*time.Second+1 {
		t.Errorf("2401st order: %v %s", ok, wait)
	}
	if ok, wait := l.admit("ip", orderCosts(2401), t0.Add(time.Hour)); ok || wait != 10*time.Second {
		t.Errorf("a batch above the cap: %v %s", ok, wait)
	}
	off := newLimiter(lim, false)
	for i := 0; i < 10; i++ {
		if ok, _ := off.admit("ip", costs, t0); !ok {
			t.Fatal("disabled limiter refused")
		}
	}
}

func TestRequestCosts(t *testing.T) {
	tests := []struct {
		area, method, path string
		want               []ruleID
	}{
		{"data", "GET", "/trades", []ruleID{rDataGeneral, rDataTrades}},
		{"data", "GET", "/holders", []ruleID{rDataGeneral}},
		{"catalog", "GET", "/events", []ruleID{rCatalogGeneral, rCatalogEvents, rCatalogEventsMarkets}},
		{"catalog", "GET", "/events/slug/x", []ruleID{rCatalogGeneral, rCatalogEvents, rCatalogEventsMarkets}},
		{"catalog", "GET", "/markets/12", []ruleID{rCatalogGeneral, rCatalogMarkets, rCatalogEventsMarkets}},
		{"catalog", "GET", "/tags", []ruleID{rCatalogGeneral, rCatalogTags}},
		{"catalog", "GET", "/series", []ruleID{rCatalogGeneral}},
		{"clob", "POST", "/books", []ruleID{rCLOBGeneral, rCLOBBooks}},
		{"clob", "DELETE", "/order", []ruleID{rCLOBGeneral, rDeleteOrderBurst, rDeleteOrderSustained}},
		{"clob", "POST", "/orders", []ruleID{rCLOBGeneral}},
		{"clob", "GET", "/", []ruleID{rCLOBGeneral, rCLOBHealth}},
		{"", "GET", "/x", nil},
	}
	for _, tt := range tests {
		got := requestCosts(tt.area, tt.method, tt.path)
		if len(got) != len(tt.want) {
			t.Errorf("%s %s %s: %v", tt.area, tt.method, tt.path, got)
			continue
		}
		for i := range got {
			if got[i].rule != tt.want[i] || got[i].n != 1 {
				t.Errorf("%s %s %s: %v", tt.area, tt.method, tt.path, got)
			}
		}
	}
}

func TestRetryAfterSeconds(t *testing.T) {
	for in, want := range map[time.Duration]int{0: 1, 1: 1, time.Second: 1, time.Second + 1: 2, 59*time.Second + 1: 60} {
		if got := retryAfterSeconds(in); got != want {
			t.Errorf("retryAfterSeconds(%s) = %d, want %d", in, got, want)
		}
	}
}

func TestAllowlist(t *testing.T) {
	a, err := newAllowlist([]string{"10.0.0.0/8", " 127.0.0.1 ", "::1", ""})
	if err != nil {
		t.Fatal(err)
	}
	for ip, want := range map[string]bool{"10.1.2.3": true, "127.0.0.1": true, "127.0.0.2": false, "::1": true, "::ffff:10.0.0.1": true, "": false, "junk": false} {
		if got := a.allowed(ip); got != want {
			t.Errorf("allowed(%q) = %v", ip, got)
		}
	}
	if _, err := newAllowlist([]string{"10.0.0.0/33"}); err == nil {
		t.Error("bad prefix accepted")
	}
	if _, err := newAllowlist([]string{"nope"}); err == nil {
		t.Error("bad ip accepted")
	}
	empty, _ := newAllowlist(nil)
	if !empty.allowed("1.2.3.4") {
		t.Error("empty allowlist refused")
	}
}

func TestCheckAddr(t *testing.T) {
	for _, tt := range []struct {
		addr   string
		public bool
		ok     bool
	}{
		{"127.0.0.1:0", false, true}, {"[::1]:80", false, true}, {"localhost:8080", false, true},
		{"0.0.0.0:0", false, false}, {":8080", false, false}, {"192.168.1.2:80", false, false},
		{"0.0.0.0:0", true, true}, {"nonsense", false, false},
	} {
		err := checkAddr(tt.addr, tt.public)
		if (err == nil) != tt.ok {
			t.Errorf("checkAddr(%q, %v) = %v", tt.addr, tt.public, err)
		}
		if err != nil && tt.addr != "nonsense" && !errors.Is(err, ErrPublicAddr) {
			t.Errorf("checkAddr(%q): %v is not ErrPublicAddr", tt.addr, err)
		}
	}
}

func TestPriceSize(t *testing.T) {
	tests := []struct {
		side         exchange.Side
		maker, taker string
		price, size  int64
		ok           bool
	}{
		{exchange.Buy, "4000000", "10000000", 400_000, 10_000_000, true},
		{exchange.Sell, "10000000", "4000000", 400_000, 10_000_000, true},
		{exchange.Buy, "1", "3", 0, 0, false},
		{exchange.Buy, "0", "10", 0, 0, false},
		{exchange.Buy, "-5", "10", 0, 0, false},
		{exchange.Buy, "x", "10", 0, 0, false},
		{exchange.Buy, "1234", "10000", 123_400, 10_000, true},
		{exchange.Buy, "9223372036854775807", "1", math.MaxInt64, 1, true}, // saturated: the engine refuses it
		{exchange.Sell, "3", "9223372036854775807", 0, 0, false},
	}
	for _, tt := range tests {
		p, s, err := priceSize(exchange.SignedOrder{Side: tt.side, MakerAmount: tt.maker, TakerAmount: tt.taker})
		if (err == nil) != tt.ok || (tt.ok && (p != tt.price || s != tt.size)) {
			t.Errorf("priceSize(%v %s/%s) = %d %d %v", tt.side, tt.maker, tt.taker, p, s, err)
		}
	}
}

func FuzzQueryParams(f *testing.F) {
	for _, s := range []string{"limit=10", "limit=-1&offset=x", "takerOnly=maybe", "market=a,,b", "filterAmount=1e400", "bogus=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		q := newQuery(v, "limit", "offset", "takerOnly", "filterAmount", "market")
		n := q.intRange("limit", 100, 0, 10000)
		q.boolean("takerOnly", true)
		q.nonNegative("filterAmount", exchange.MustNumber("0").Decimal)
		m := q.list("market", false, true)
		if q.err == nil && (n < 0 || n > 10000) {
			t.Fatalf("limit %d accepted", n)
		}
		for _, s := range m {
			if q.err == nil && s == "" {
				t.Fatal("empty market accepted")
			}
		}
	})
}
