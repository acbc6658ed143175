package recording

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// BookFilter passes a token's book only when it differs from the last book
// of that token it passed: a different exchange hash, or, when the hashes
// are equal or missing, different levels, tick size or minimum size. The
// recorder and `mmbot sim --record` use it so that a recording holds changes,
// not repeats. The zero value is ready to use; it is not safe for concurrent
// use.
type BookFilter struct {
	last map[string]*filtered
}

type filtered struct {
	hash       string
	bids, asks []exchange.PriceLevel
	tick, min  decimal.Decimal
}

// Changed reports whether b differs from the last book of its token that
// Changed returned true for, and remembers b when it does. hash is the
// exchange's book hash ("" when unknown); equal non-empty hashes mean equal
// books. Changed keeps its own copy of the levels.
func (f *BookFilter) Changed(b *Book, hash string) bool {
	if f.last == nil {
		f.last = map[string]*filtered{}
	}
	prev := f.last[b.TokenID]
	if prev != nil {
		if hash != "" && hash == prev.hash {
			return false
		}
		if levelsEqual(prev.bids, b.Bids) && levelsEqual(prev.asks, b.Asks) &&
			prev.tick.Equal(b.TickSize) && prev.min.Equal(b.MinOrderSize) {
			prev.hash = hash
			return false
		}
	} else {
		prev = &filtered{}
		f.last[b.TokenID] = prev
	}
	prev.hash = hash
	prev.bids = append(prev.bids[:0], b.Bids...)
	prev.asks = append(prev.asks[:0], b.Asks...)
	prev.tick, prev.min = b.TickSize, b.MinOrderSize
	return true
}

// Forget drops what the filter remembers of a token, so that its next book
// passes.
func (f *BookFilter) Forget(tokenID string) { delete(f.last, tokenID) }

func levelsEqual(a, b []exchange.PriceLevel) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Price.Equal(b[i].Price) || !a[i].Size.Equal(b[i].Size) {
			return false
		}
	}
	return true
}

// BookFromExchange converts a POST /books book into a recording Book with
// the given stamps. It normalises b in place (best levels first) and drops
// empty levels. The levels are shared with b.
func BookFromExchange(b *exchange.OrderBook, received time.Time) Book {
	b.Normalize()
	return Book{
		Stamp:   Stamp{Exchange: parseMillis(b.Timestamp), Received: received},
		TokenID: b.AssetID, Market: b.Market,
		Bids: dropEmpty(b.Bids), Asks: dropEmpty(b.Asks),
		TickSize: b.TickSize, MinOrderSize: b.MinOrderSize,
	}
}

func dropEmpty(levels []exchange.PriceLevel) []exchange.PriceLevel {
	out := levels[:0]
	for _, l := range levels {
		if l.Size.IsPositive() {
			out = append(out, l)
		}
	}
	return out
}

// parseMillis reads an exchange timestamp in Unix milliseconds (a value
// below 10¹¹ is taken as seconds); zero when absent or unreadable.
func parseMillis(s string) time.Time {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}
	}
	if n < 1e11 {
		return time.Unix(n, 0)
	}
	return time.UnixMilli(n)
}

// TradeDedup recognises trades of the data API already seen. The API has no
// trade id: a trade is known by its transaction hash, asset, wallet, side,
// price, size and timestamp (two fills identical in all of these count as
// one). Trades before start (Unix seconds: the session's or recording's
// start) are history and never fresh; trades older than the newest seen
// minus the horizon are ignored too, so memory stays bounded while a trade
// that reappears in a later response is never taken twice.
type TradeDedup struct {
	Start   int64
	horizon time.Duration
	seen    map[tradeKey]struct{}
	newest  int64 // Unix seconds of the newest trade seen
}

type tradeKey struct {
	tx, asset, wallet string
	side              exchange.Side
	price, size       string
	ts                int64
}

func keyOf(t *exchange.Trade) tradeKey {
	return tradeKey{tx: t.TransactionHash, asset: t.Asset, wallet: strings.ToLower(t.ProxyWallet), side: t.Side,
		price: t.Price.Decimal.String(), size: t.Size.Decimal.String(), ts: t.Timestamp}
}

// floor is the oldest timestamp that can still be fresh.
func (d *TradeDedup) floor() int64 {
	return max(d.Start, d.newest-int64(d.horizon/time.Second))
}

// Fresh returns the trades of one response that were not seen before, oldest
// first, and remembers them. gap reports that the response held limit (> 0)
// trades and every one of them was fresh: trades between this response and
// the previous one may be missing.
func (d *TradeDedup) Fresh(trades []exchange.Trade, limit int) (out []exchange.Trade, gap bool) {
	if d.seen == nil {
		d.seen = map[tradeKey]struct{}{}
		if d.horizon <= 0 {
			d.horizon = 10 * time.Minute
		}
	}
	floor := d.floor()
	for i := range trades {
		t := &trades[i]
		if t.Timestamp < floor {
			continue
		}
		k := keyOf(t)
		if _, ok := d.seen[k]; ok {
			continue
		}
		d.seen[k] = struct{}{}
		d.newest = max(d.newest, t.Timestamp)
		out = append(out, *t)
	}
	gap = limit > 0 && len(trades) >= limit && len(out) == len(trades)
	if len(d.seen) > 4096 {
		floor = d.floor()
		for k := range d.seen {
			if k.ts < floor {
				delete(d.seen, k)
			}
		}
	}
	sortTradesByTime(out)
	return out, gap
}

// sortTradesByTime orders trades oldest first. Responses come newest first,
// so equal timestamps keep their arrival order reversed.
func sortTradesByTime(ts []exchange.Trade) {
	slices.Reverse(ts)
	slices.SortStableFunc(ts, func(a, b exchange.Trade) int { return cmp.Compare(a.Timestamp, b.Timestamp) })
}

// TradeToken maps a data API trade to the token it traded, through the
// markets' token lists (the asset is "<condition_id>:<outcome_index>").
func TradeToken(t *exchange.Trade, byCond map[string][2]string) (string, bool) {
	cond, idx := t.ConditionID, t.OutcomeIndex
	if c, n, ok := strings.Cut(t.Asset, ":"); ok {
		if i, err := strconv.Atoi(n); err == nil {
			cond, idx = c, i
		}
	}
	toks, ok := byCond[strings.ToLower(cond)]
	if !ok || idx < 0 || idx > 1 {
		return "", false
	}
	return toks[idx], true
}

// paperCondChunk is how many condition ids one GET /trades names.
const MarketsPerTradesRequest = 50
