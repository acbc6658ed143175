package sim

import (
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// The server's rate limiter is independent of the client's token buckets:
// each cap is an exact sliding window (a queue of admitted requests with
// their times), so a request is refused exactly when admitting it would put
// more than Requests units in some closed interval of length Window ending
// now. Caps are counted per client IP.

// ruleID names one cap of the limits table.
type ruleID int

const (
	rDataGeneral ruleID = iota
	rDataTrades
	rCatalogGeneral
	rCatalogEvents
	rCatalogMarkets
	rCatalogEventsMarkets
	rCatalogTags
	rCatalogPublicSearch
	rCLOBGeneral
	rCLOBHealth
	rCLOBBook
	rCLOBBooks
	rCLOBPrice
	rCLOBPrices
	rCLOBMidpoint
	rCLOBPricesHistory
	rCLOBBatchPricesHistory
	rPostOrderBurst
	rPostOrderSustained
	rDeleteOrderBurst
	rDeleteOrderSustained
	numRules
)

func capsOf(l exchange.Limits) [numRules]exchange.Cap {
	return [numRules]exchange.Cap{
		l.DataGeneral, l.DataTrades,
		l.CatalogGeneral, l.CatalogEvents, l.CatalogMarkets, l.CatalogEventsMarkets, l.CatalogTags, l.CatalogPublicSearch,
		l.CLOBGeneral, l.CLOBHealth, l.CLOBBook, l.CLOBBooks, l.CLOBPrice, l.CLOBPrices, l.CLOBMidpoint, l.CLOBPricesHistory, l.CLOBBatchPricesHistory,
		l.PostOrderBurst, l.PostOrderSustained, l.DeleteOrderBurst, l.DeleteOrderSustained,
	}
}

// cost is units taken from one rule.
type cost struct {
	rule ruleID
	n    int
}

// requestCosts maps a request (area, method, path relative to the area) to
// the caps it counts against. POST /orders is charged per order by its
// handler (orderCosts), on top of the general cap charged here.
func requestCosts(area, method, path string) []cost {
	one := func(rs ...ruleID) []cost {
		out := make([]cost, len(rs))
		for i, r := range rs {
			out[i] = cost{r, 1}
		}
		return out
	}
	switch area {
	case "data":
		if method == http.MethodGet && path == "/trades" {
			return one(rDataGeneral, rDataTrades)
		}
		return one(rDataGeneral)
	case "catalog":
		switch {
		case method != http.MethodGet:
			return one(rCatalogGeneral)
		case path == "/events" || strings.HasPrefix(path, "/events/"):
			return one(rCatalogGeneral, rCatalogEvents, rCatalogEventsMarkets)
		case path == "/markets" || strings.HasPrefix(path, "/markets/"):
			return one(rCatalogGeneral, rCatalogMarkets, rCatalogEventsMarkets)
		case path == "/tags":
			return one(rCatalogGeneral, rCatalogTags)
		case path == "/public-search":
			return one(rCatalogGeneral, rCatalogPublicSearch)
		}
		return one(rCatalogGeneral)
	case "clob":
		switch method + " " + path {
		case "GET /":
			return one(rCLOBGeneral, rCLOBHealth)
		case "GET /book":
			return one(rCLOBGeneral, rCLOBBook)
		case "POST /books":
			return one(rCLOBGeneral, rCLOBBooks)
		case "GET /price":
			return one(rCLOBGeneral, rCLOBPrice)
		case "POST /prices":
			return one(rCLOBGeneral, rCLOBPrices)
		case "GET /midpoint":
			return one(rCLOBGeneral, rCLOBMidpoint)
		case "GET /prices-history":
			return one(rCLOBGeneral, rCLOBPricesHistory)
		case "POST /batch-prices-history":
			return one(rCLOBGeneral, rCLOBBatchPricesHistory)
		case "POST /order":
			return one(rCLOBGeneral, rPostOrderBurst, rPostOrderSustained)
		case "DELETE /order":
			return one(rCLOBGeneral, rDeleteOrderBurst, rDeleteOrderSustained)
		}
		return one(rCLOBGeneral)
	}
	return nil
}

// orderCosts is what a POST /orders batch of n orders costs.
func orderCosts(n int) []cost {
	return []cost{{rPostOrderBurst, n}, {rPostOrderSustained, n}}
}

// slot is a run of units admitted at one instant.
type slot struct {
	t int64 // Unix nanoseconds
	n int
}

// window is the admitted units of one rule and client, oldest first.
type window struct {
	q    []slot
	head int
	sum  int
}

// prune drops slots older than the window.
func (w *window) prune(now, span int64) {
	for w.head < len(w.q) && w.q[w.head].t < now-span {
		w.sum -= w.q[w.head].n
		w.head++
	}
	if w.head > 64 && w.head*2 > len(w.q) {
		w.q = append(w.q[:0], w.q[w.head:]...)
		w.head = 0
	}
}

// wait returns how long until n more units fit under c units, 0 if now.
func (w *window) wait(now, span int64, c, n int) time.Duration {
	excess := w.sum + n - c
	if excess <= 0 {
		return 0
	}
	if n > c {
		return time.Duration(span)
	}
	for i := w.head; i < len(w.q); i++ {
		excess -= w.q[i].n
		if excess <= 0 {
			// that slot leaves the closed window just after t + span
			return time.Duration(w.q[i].t+span-now) + 1
		}
	}
	return time.Duration(span)
}

type limitKey struct {
	rule   ruleID
	client string
}

// limiter enforces the caps; it has its own lock.
type limiter struct {
	mu      sync.Mutex
	on      bool
	caps    [numRules]exchange.Cap
	windows map[limitKey]*window
}

func newLimiter(l exchange.Limits, on bool) *limiter {
	return &limiter{on: on, caps: capsOf(l), windows: map[limitKey]*window{}}
}

// admit takes costs for client at now if every cap has room; otherwise it
// takes nothing and returns how long to wait.
func (l *limiter) admit(client string, costs []cost, now time.Time) (bool, time.Duration) {
	if !l.on || len(costs) == 0 {
		return true, 0
	}
	t := now.UnixNano()
	l.mu.Lock()
	defer l.mu.Unlock()
	var wait time.Duration
	ws := make([]*window, len(costs))
	for i, c := range costs {
		k := limitKey{c.rule, client}
		w := l.windows[k]
		if w == nil {
			w = &window{}
			l.windows[k] = w
		}
		ws[i] = w
		cp := l.caps[c.rule]
		w.prune(t, int64(cp.Window))
		wait = max(wait, w.wait(t, int64(cp.Window), cp.Requests, c.n))
	}
	if wait > 0 {
		return false, wait
	}
	for i, c := range costs {
		w := ws[i]
		if n := len(w.q); n > w.head && w.q[n-1].t == t {
			w.q[n-1].n += c.n
		} else {
			w.q = append(w.q, slot{t, c.n})
		}
		w.sum += c.n
	}
	return true, 0
}

// retryAfterSeconds renders a wait as a Retry-After value: whole seconds,
// rounded up, at least 1.
func retryAfterSeconds(d time.Duration) int {
	s := int((d + time.Second - 1) / time.Second)
	return max(1, s)
}
