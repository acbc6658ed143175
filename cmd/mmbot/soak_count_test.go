package main

import (
	"math"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// The soak harness's arithmetic, kept apart from the run so that the
// normal tests check it: which spec cap a request counts against, the
// busiest window of each cap, and the delay from a trade to its booking.

// soakCap is one cap of the spec's Limits table as counted by the soak:
// units says how many units a request (full path) takes from it.
type soakCap struct {
	name  string
	cap   exchange.Cap
	units func(method, path string, orders int) int
}

// soakCaps are the caps that apply to what the daemon sends, with the
// spec's numbers (exchange.DefaultLimits) and the simulator's mapping
// (docs/simulator.md, Rate limits), written out here so that the count does
// not share code with any limiter.
func soakCaps() []soakCap {
	l := exchange.DefaultLimits()
	under := func(prefix string) func(string, string, int) int {
		return func(_, p string, _ int) int {
			if p == prefix || strings.HasPrefix(p, prefix+"/") {
				return 1
			}
			return 0
		}
	}
	is := func(method, path string) func(string, string, int) int {
		return func(m, p string, _ int) int {
			if m == method && p == path {
				return 1
			}
			return 0
		}
	}
	getUnder := func(prefix string) func(string, string, int) int {
		in := under(prefix)
		return func(m, p string, n int) int {
			if m != http.MethodGet {
				return 0
			}
			return in(m, p, n)
		}
	}
	orders := func(m, p string, n int) int {
		if m == http.MethodPost && p == "/clob/orders" {
			return n
		}
		return 0
	}
	eventsMarkets := func(m, p string, n int) int {
		return getUnder("/catalog/events")(m, p, n) + getUnder("/catalog/markets")(m, p, n)
	}
	return []soakCap{
		{"clob general", l.CLOBGeneral, under("/clob")},
		{"POST /books", l.CLOBBooks, is(http.MethodPost, "/clob/books")},
		{"GET / (health)", l.CLOBHealth, is(http.MethodGet, "/clob/")},
		{"POST /orders burst", l.PostOrderBurst, orders},
		{"POST /orders sustained", l.PostOrderSustained, orders},
		{"DELETE /order burst", l.DeleteOrderBurst, is(http.MethodDelete, "/clob/order")},
		{"DELETE /order sustained", l.DeleteOrderSustained, is(http.MethodDelete, "/clob/order")},
		{"data general", l.DataGeneral, under("/data")},
		{"data GET /trades", l.DataTrades, is(http.MethodGet, "/data/trades")},
		{"catalog general", l.CatalogGeneral, under("/catalog")},
		{"catalog GET /events", l.CatalogEvents, getUnder("/catalog/events")},
		{"catalog GET /markets", l.CatalogMarkets, getUnder("/catalog/markets")},
		{"catalog events+markets", l.CatalogEventsMarkets, eventsMarkets},
		{"catalog GET /tags", l.CatalogTags, getUnder("/catalog/tags")},
	}
}

// soakRequest is one request as the simulator's request log has it.
type soakRequest struct {
	t      time.Time
	method string
	path   string
	status int
	orders int
}

// capUsage is a cap's busiest window over a run.
type capUsage struct {
	soakCap
	busiest int       // most units in one closed window of the cap's length
	at      time.Time // where that window starts
	total   int
}

func (u capUsage) ratio() float64 { return float64(u.busiest) / float64(u.cap.Requests) }

// countCaps counts reqs against every cap.
func countCaps(caps []soakCap, reqs []soakRequest) []capUsage {
	out := make([]capUsage, len(caps))
	for i, c := range caps {
		var xs []timedUnits
		for _, r := range reqs {
			if n := c.units(r.method, r.path, r.orders); n > 0 {
				xs = append(xs, timedUnits{r.t, n})
			}
		}
		out[i] = capUsage{soakCap: c, total: total(xs)}
		out[i].busiest, out[i].at = busiestWindow(xs, c.cap.Window)
	}
	return out
}

// busiestWindow returns the most units in any closed interval [s, s+w]
// and the earliest such s (the time of its first request); zero for no
// units. xs is sorted in place.
func busiestWindow(xs []timedUnits, w time.Duration) (int, time.Time) {
	sort.SliceStable(xs, func(i, j int) bool { return xs[i].t.Before(xs[j].t) })
	best, sum, lo := 0, 0, 0
	var at time.Time
	for hi := range xs {
		sum += xs[hi].n
		for xs[hi].t.Sub(xs[lo].t) > w {
			sum -= xs[lo].n
			lo++
		}
		if sum > best {
			best, at = sum, xs[lo].t
		}
	}
	return best, at
}

// soakTrade is one of the bot's fills as the exchange made it.
type soakTrade struct {
	t     time.Time
	order string // the bot's order hash, lower case
	size  decimal.Decimal
}

// soakBooking is one fill as the journal booked it: the order, the
// order's cumulative matched size after it, and when it was booked.
type soakBooking struct {
	order   string
	through decimal.Decimal
	t       time.Time
}

// fillDelays returns, for each trade, how long after it the journal booked
// a fill covering it (the first booking of its order whose cumulative size
// reaches the trade's), and the trades no booking covers.
func fillDelays(trades []soakTrade, books []soakBooking) (delays []time.Duration, unbooked []soakTrade) {
	byOrder := map[string][]soakBooking{}
	for _, b := range books {
		byOrder[b.order] = append(byOrder[b.order], b)
	}
	for _, bs := range byOrder {
		sort.SliceStable(bs, func(i, j int) bool { return bs[i].through.LessThan(bs[j].through) })
	}
	sort.SliceStable(trades, func(i, j int) bool { return trades[i].t.Before(trades[j].t) })
	cum := map[string]decimal.Decimal{}
	for _, tr := range trades {
		c := cum[tr.order].Add(tr.size)
		cum[tr.order] = c
		found := false
		for _, b := range byOrder[tr.order] {
			if b.through.GreaterThanOrEqual(c) {
				delays = append(delays, b.t.Sub(tr.t))
				found = true
				break
			}
		}
		if !found {
			unbooked = append(unbooked, tr)
		}
	}
	return delays, unbooked
}

// percentile returns the p-th percentile (0..100, nearest rank) of ds.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	k := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[min(max(k, 0), len(s)-1)]
}
