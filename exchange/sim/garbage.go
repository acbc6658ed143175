package sim

import (
	"slices"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// GarbageKinds are the corruptions of the garbage-books fault
// (Faults.GarbageKind), one per rule of exchange.ValidateBook: each is the
// garbage measured against the daemon.
var GarbageKinds = []string{
	"negative_size",   // a level of size −1000
	"huge_size",       // a level of size 1e300
	"zero_tick",       // tick_size "0"
	"negative_tick",   // tick_size "-0.01"
	"odd_tick",        // tick_size "0.7"
	"tiny_tick",       // tick_size "1e-30"
	"huge_min_size",   // min_order_size 1e12
	"negative_price",  // a bid at −0.5
	"price_above_one", // an ask at 1.5
	"unsorted",        // bids out of order
	"crossed",         // a bid above the best ask
}

// garbageKind draws the corruption of one book of the given market: ""
// when it stays honest.
func (fs *faultState) garbageKind(market string) string {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	f := fs.f
	hit := slices.Contains(f.GarbageMarkets, market)
	if !hit && f.GarbageRate > 0 {
		hit = fs.r.Float64() < f.GarbageRate
	}
	switch {
	case !hit:
		return ""
	case f.GarbageKind != "":
		return f.GarbageKind
	}
	return GarbageKinds[fs.r.IntN(len(GarbageKinds))]
}

// corrupt makes b garbage of the given kind. b is as POST /books sends it:
// bids ascending and asks descending, best last.
func corrupt(b *exchange.OrderBook, kind string) {
	d := decimal.RequireFromString
	// level returns a level of the side to spoil, adding one if the side
	// is empty.
	bestBid := func() *exchange.PriceLevel {
		if len(b.Bids) == 0 {
			b.Bids = append(b.Bids, exchange.PriceLevel{Price: d("0.01"), Size: d("10")})
		}
		return &b.Bids[len(b.Bids)-1]
	}
	bestAsk := func() *exchange.PriceLevel {
		if len(b.Asks) == 0 {
			b.Asks = append(b.Asks, exchange.PriceLevel{Price: d("0.99"), Size: d("10")})
		}
		return &b.Asks[len(b.Asks)-1]
	}
	switch kind {
	case "negative_size":
		bestBid().Size = d("-1000")
	case "huge_size":
		bestAsk().Size = d("1e300")
	case "zero_tick":
		b.TickSize = decimal.Zero
	case "negative_tick":
		b.TickSize = d("-0.01")
	case "odd_tick":
		b.TickSize = d("0.7")
	case "tiny_tick":
		b.TickSize = d("1e-30")
	case "huge_min_size":
		b.MinOrderSize = d("1e12")
	case "negative_price":
		bestBid().Price = d("-0.5")
	case "price_above_one":
		bestAsk().Price = d("1.5")
	case "unsorted":
		if len(b.Bids) < 3 {
			b.Bids = []exchange.PriceLevel{{Price: d("0.03"), Size: d("10")}, {Price: d("0.01"), Size: d("10")}, {Price: d("0.02"), Size: d("10")}}
		} else {
			b.Bids[0], b.Bids[1] = b.Bids[1], b.Bids[0]
		}
	case "crossed":
		ask := bestAsk().Price
		b.Bids = append(b.Bids, exchange.PriceLevel{Price: ask, Size: d("10")})
	}
}
