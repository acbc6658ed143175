package daemon

import (
	"context"
	"strings"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy/loop"
)

// builderHistory is the loop's trade history (loop.TradeHistory): GET
// /builder/trades for the account's maker address. It is the order-book
// API's only read that names the account's orders by id, so a trade there
// is evidence that one of them filled (see docs/protocol.md for why not
// the data API's /trades). It lists only the trades of orders carrying a
// builder code (account.builder_code): without one the daemon runs without
// a history and finds fills by reading its orders back.
type builderHistory struct {
	c     *exchange.Client
	maker string
	max   int // trades read at most per call (newest first): the read stays one or a few pages
}

var _ loop.TradeHistory = builderHistory{}

// historyMaxTrades bounds one history read: 20 pages of 100. A cycle's read
// covers a few seconds of trades; the first read after a restart with no
// cursor takes the newest ones.
const historyMaxTrades = 2000

// hasBuilderCode reports whether code is a builder code that is not zero.
func hasBuilderCode(code string) bool {
	return strings.Trim(strings.TrimPrefix(strings.ToLower(code), "0x"), "0") != ""
}

// OwnTrades reads the trades after since (Unix seconds, strictly after:
// the second of since itself is read again; the loop drops what it took),
// newest first, page by page until max trades. A MAKER trade names our
// resting order among its maker orders; a TAKER trade names ours as its
// taker order (and possibly ours among the makers too).
func (h builderHistory) OwnTrades(ctx context.Context, since time.Time) ([]loop.OwnTrade, error) {
	p := exchange.BuilderTradesParams{MakerAddress: h.maker}
	if !since.IsZero() {
		p.After = exchange.Ptr(max(since.Unix()-1, 0))
	}
	var out []loop.OwnTrade
	n := 0
	for t, err := range h.c.AllBuilderTrades(ctx, p) {
		if err != nil {
			return out, err
		}
		out = h.ownTrades(&t, out)
		if n++; n >= h.max {
			break
		}
	}
	return out, nil
}
