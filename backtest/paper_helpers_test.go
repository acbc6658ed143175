package backtest

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// paperFake is a scripted exchange for the paper venue and the recorder: it
// serves the books and trades the test sets, counts the calls, and has no
// order endpoint at all.
type paperFake struct {
	mu         sync.Mutex
	books      map[string]exchange.OrderBook // best first; served best last, as the exchange does
	trades     []exchange.Trade              // newest first, as GET /trades returns them
	missing    map[string]bool               // tokens whose book is "not found"
	failBooks  error                         // returned by every Books call when set
	failTrades error
	bookCalls  int
	tradeCalls int
	lastTrades exchange.TradesParams
}

func newPaperFake() *paperFake {
	return &paperFake{books: map[string]exchange.OrderBook{}, missing: map[string]bool{}}
}

func (f *paperFake) setBook(tb testing.TB, tok, market, tick string, ts time.Time, bids, asks []exchange.PriceLevel) {
	tb.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.books[tok] = exchange.OrderBook{Market: market, AssetID: tok, Timestamp: strconv.FormatInt(ts.UnixMilli(), 10),
		Bids: bids, Asks: asks, TickSize: dec(tick), MinOrderSize: dec("5")}
}

// addTrade prints a taker trade on outcome idx of market at time ts.
func (f *paperFake) addTrade(market string, idx int, side exchange.Side, price, size string, ts time.Time, tx string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := exchange.Trade{ProxyWallet: "0xtaker", Side: side, Asset: market + ":" + strconv.Itoa(idx), ConditionID: market,
		Size: exchange.MustNumber(size), Price: exchange.MustNumber(price), Timestamp: ts.Unix(), OutcomeIndex: idx, TransactionHash: tx}
	f.trades = append([]exchange.Trade{t}, f.trades...)
}

func (f *paperFake) Books(ctx context.Context, toks []string) ([]exchange.OrderBook, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.bookCalls++
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if f.failBooks != nil {
		return nil, f.failBooks
	}
	out := make([]exchange.OrderBook, 0, len(toks))
	for _, tok := range toks {
		if f.missing[tok] {
			return nil, &exchange.APIError{Area: "clob", Status: 404, Message: "no orderbook exists for token id " + tok}
		}
		b, ok := f.books[tok]
		if !ok {
			continue
		}
		b.Bids = slices.Clone(b.Bids)
		b.Asks = slices.Clone(b.Asks)
		slices.Reverse(b.Bids)
		slices.Reverse(b.Asks)
		out = append(out, b)
	}
	return out, nil
}

func (f *paperFake) Trades(ctx context.Context, p exchange.TradesParams) ([]exchange.Trade, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tradeCalls++
	f.lastTrades = p
	if f.failTrades != nil {
		return nil, f.failTrades
	}
	var out []exchange.Trade
	for _, t := range f.trades {
		if p.Limit != nil && len(out) >= *p.Limit {
			break
		}
		if len(p.Market) > 0 && !slices.Contains(p.Market, t.ConditionID) {
			continue
		}
		out = append(out, t)
	}
	return out, nil
}

func (f *paperFake) Budget(time.Time) exchange.Budget { return exchange.Budget{Orders: 7, Cancels: 9} }

// paperClock is a settable clock.
type paperClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *paperClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *paperClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Sleep advances the clock instead of sleeping.
func (c *paperClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d > 0 {
		c.add(d)
	}
	return nil
}

// paperItem builds a placement item the way the signer does: BUY pays
// price × size collateral for size shares, SELL the reverse; amounts in base
// units.
func paperItem(tok string, side exchange.Side, price, size string) exchange.PlacementItem {
	p, s := dec(price), dec(size)
	coll := p.Mul(s).Shift(6).IntPart()
	sh := s.Shift(6).IntPart()
	maker, taker := coll, sh
	if side == exchange.Sell {
		maker, taker = sh, coll
	}
	return exchange.PlacementItem{OrderType: exchange.GTC, Order: exchange.SignedOrder{TokenID: tok, Side: side,
		MakerAmount: strconv.FormatInt(maker, 10), TakerAmount: strconv.FormatInt(taker, 10), Salt: "1"}}
}

const (
	pMkt = "0xmarket"
	pYes = "111"
	pNo  = "222"
)
