package exchange

import (
	"fmt"
	"math"
	"time"
)

// Cap is one rate cap: at most Requests in any window of length Window.
type Cap struct {
	Requests int
	Window   time.Duration
}

func (c Cap) String() string { return fmt.Sprintf("%d/%s", c.Requests, c.Window) }

// Limits holds every cap of the spec's limits table plus the project's
// default for the data API (the spec shows none) and the fill factor of the
// token buckets. DefaultLimits returns the spec's numbers; configs override
// them field by field. Caps the client has no endpoint for (health, single
// book, prices, midpoint, price history, public search) are kept so that the
// table is complete and a snapshot shows them; nothing consumes them.
type Limits struct {
	// Fill in (0, 1] is the most any window of a cap may hold, as a
	// fraction of the cap, start-up burst and restarts included; the
	// burst is (1 − Fill) of that and the refill the rest
	// (docs/protocol.md, "The bucket math").
	Fill float64

	DataGeneral Cap // project choice: 1000/10s (the spec shows none)
	DataTrades  Cap // GET /trades (data API) 150/10s

	CatalogGeneral       Cap // 4000/10s
	CatalogEvents        Cap // GET /events 500/10s
	CatalogMarkets       Cap // GET /markets 300/10s (GET /markets/{id} counts here)
	CatalogEventsMarkets Cap // GET /events + GET /markets combined 900/10s
	CatalogTags          Cap // GET /tags 200/10s
	CatalogPublicSearch  Cap // GET /public-search 350/10s (no client method)

	CLOBGeneral            Cap // 5000/10s
	CLOBHealth             Cap // GET / 50/10s (no client method)
	CLOBBook               Cap // GET /book 200/10s (no client method)
	CLOBBooks              Cap // POST /books 80/10s
	CLOBPrice              Cap // GET /price 200/10s (no client method)
	CLOBPrices             Cap // POST /prices 80/10s (no client method)
	CLOBMidpoint           Cap // GET /midpoint 200/10s (no client method)
	CLOBPricesHistory      Cap // GET /prices-history 100/10s (no client method)
	CLOBBatchPricesHistory Cap // POST /batch-prices-history 80/10s (no client method)

	PostOrderBurst       Cap // 2400/10s, one unit per order of a POST /orders batch
	PostOrderSustained   Cap // 24000/10min, likewise
	DeleteOrderBurst     Cap // 2400/10s
	DeleteOrderSustained Cap // 24000/10min
}

// DefaultFill is the default Limits.Fill.
const DefaultFill = 0.95

// DefaultLimits returns the spec's caps, 1000/10s for the data API's general
// cap (project choice) and Fill 0.95.
func DefaultLimits() Limits {
	const w = 10 * time.Second
	return Limits{
		Fill:                   DefaultFill,
		DataGeneral:            Cap{1000, w},
		DataTrades:             Cap{150, w},
		CatalogGeneral:         Cap{4000, w},
		CatalogEvents:          Cap{500, w},
		CatalogMarkets:         Cap{300, w},
		CatalogEventsMarkets:   Cap{900, w},
		CatalogTags:            Cap{200, w},
		CatalogPublicSearch:    Cap{350, w},
		CLOBGeneral:            Cap{5000, w},
		CLOBHealth:             Cap{50, w},
		CLOBBook:               Cap{200, w},
		CLOBBooks:              Cap{80, w},
		CLOBPrice:              Cap{200, w},
		CLOBPrices:             Cap{80, w},
		CLOBMidpoint:           Cap{200, w},
		CLOBPricesHistory:      Cap{100, w},
		CLOBBatchPricesHistory: Cap{80, w},
		PostOrderBurst:         Cap{2400, w},
		PostOrderSustained:     Cap{24000, 10 * time.Minute},
		DeleteOrderBurst:       Cap{2400, w},
		DeleteOrderSustained:   Cap{24000, 10 * time.Minute},
	}
}

// bucketID names one token bucket; there is one per Limits cap.
type bucketID int

const (
	bDataGeneral bucketID = iota
	bDataTrades
	bCatalogGeneral
	bCatalogEvents
	bCatalogMarkets
	bCatalogEventsMarkets
	bCatalogTags
	bCatalogPublicSearch
	bCLOBGeneral
	bCLOBHealth
	bCLOBBook
	bCLOBBooks
	bCLOBPrice
	bCLOBPrices
	bCLOBMidpoint
	bCLOBPricesHistory
	bCLOBBatchPricesHistory
	bPostOrderBurst
	bPostOrderSustained
	bDeleteOrderBurst
	bDeleteOrderSustained
	numBuckets
)

// bucketNames are the snapshot and metric names of the buckets, in bucketID
// order; they match the config keys of [exchange.limits].
var bucketNames = [numBuckets]string{
	"data_general", "data_trades",
	"catalog_general", "catalog_events", "catalog_markets", "catalog_events_markets", "catalog_tags", "catalog_public_search",
	"clob_general", "clob_health", "clob_book", "clob_books", "clob_price", "clob_prices", "clob_midpoint", "clob_prices_history", "clob_batch_prices_history",
	"post_order_burst", "post_order_sustained", "delete_order_burst", "delete_order_sustained",
}

func (b bucketID) String() string {
	if b < 0 || b >= numBuckets {
		return fmt.Sprintf("bucket(%d)", int(b))
	}
	return bucketNames[b]
}

// caps returns the caps in bucketID order.
func (l *Limits) caps() [numBuckets]Cap {
	return [numBuckets]Cap{
		l.DataGeneral, l.DataTrades,
		l.CatalogGeneral, l.CatalogEvents, l.CatalogMarkets, l.CatalogEventsMarkets, l.CatalogTags, l.CatalogPublicSearch,
		l.CLOBGeneral, l.CLOBHealth, l.CLOBBook, l.CLOBBooks, l.CLOBPrice, l.CLOBPrices, l.CLOBMidpoint, l.CLOBPricesHistory, l.CLOBBatchPricesHistory,
		l.PostOrderBurst, l.PostOrderSustained, l.DeleteOrderBurst, l.DeleteOrderSustained,
	}
}

// Validate checks Fill and every cap.
func (l *Limits) Validate() error {
	if !(l.Fill > 0 && l.Fill <= 1) || math.IsNaN(l.Fill) {
		return fmt.Errorf("exchange: limits: fill %v must be in (0, 1]", l.Fill)
	}
	for i, c := range l.caps() {
		if c.Requests < 1 {
			return fmt.Errorf("exchange: limits: %s requests %d must be at least 1", bucketID(i), c.Requests)
		}
		if c.Window <= 0 {
			return fmt.Errorf("exchange: limits: %s window %s must be positive", bucketID(i), c.Window)
		}
	}
	return nil
}

// BucketShape returns the burst B and the refill per window r·W of a token
// bucket that never admits more than fill·c.Requests in any closed window of
// length c.Window: with tokens at most B at the window's start and r·W
// accrued during it, at most floor(B + r·W) requests fit, so B + r·W ≤ f·C
// is enough. With T = f·C: B = floor(T·(1−fill)) (at least 1) and
// r·W = T − B. When that leaves no refill (T ≤ 1, a cap of one or two
// requests) the refill is fill/2 per window so that floor(B + r·W) = B.
func BucketShape(c Cap, fill float64) (burst int, perWindow float64) {
	T := fill * float64(c.Requests)
	burst = max(1, int(math.Floor(T*(1-fill)+1e-9)))
	perWindow = T - float64(burst)
	if perWindow <= 0 {
		perWindow = fill / 2
	}
	return burst, perWindow
}

// windowCeiling is the most units any window of c may hold with the bucket
// shape of BucketShape(c, fill): T = fill·c.Requests, or the burst when T is
// below it (a cap so small that T < 1, where the bucket must still admit
// one request). Seeding after a restart (remaining) keeps every window that
// straddles the restart within it too.
func windowCeiling(c Cap, fill float64, burst int) float64 {
	return max(fill*float64(c.Requests), float64(burst))
}
