package loop

import (
	"context"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy"
)

// Venue is what the loop needs from an exchange: read books and the tape,
// place a batch, cancel one order, read one order, and how much the rate
// limiter can take now. The HTTP client (live), the paper venue and the
// replay venue implement it; the loop never knows which one it has.
//
// The level slices of the books Books returns become the loop's: the venue
// never writes them afterwards. A venue that knows a token's book did not
// change may return the very same slices again (the replay does). A book
// whose levels are the ones taken before (those slices, or equal levels in
// the same order) is not checked and sorted again, and the loop keeps the
// slices it has. The loop, for its part,
// never writes what a venue returns (books, the tape, orders), so a venue
// may answer from what it keeps. The token ids of Books and the markets of
// Trades' parameters are the loop's, valid during the call: a venue that
// keeps them copies them.
type Venue interface {
	Books(ctx context.Context, tokenIDs []string) ([]exchange.OrderBook, error)
	Trades(ctx context.Context, p exchange.TradesParams) ([]exchange.Trade, error)
	PlaceOrders(ctx context.Context, items []exchange.PlacementItem) ([]exchange.PlacementResult, error)
	CancelOrder(ctx context.Context, orderID string) (*exchange.CancelResult, error)
	Order(ctx context.Context, id string) (*exchange.Order, error)
	Budget(now time.Time) exchange.Budget
}

// Clock is the loop's time source. A backtest passes its simulated clock, so
// a run is deterministic and never really sleeps.
type Clock interface {
	Now() time.Time
	Sleep(ctx context.Context, d time.Duration) error
}

// OrderSigner turns a planned order of a market into a signed placement item
// and its order hash (which is also the exchange's order id). Package signer
// implements it through an adapter in cmd/mmbot.
type OrderSigner interface {
	SignOrder(m *strategy.Market, o *strategy.Order, t exchange.OrderType) (item exchange.PlacementItem, hash string, err error)
}

// ConcurrentSigner is an optional part of an OrderSigner: one that is safe
// for concurrent use. The loop then signs a cycle's orders on up to
// SignWorkers goroutines at once (a secp256k1 signature each: the largest
// part of a requoting cycle); the intents, their journaling and their sends
// keep the plan's order. A signer whose results depend on the order of its
// calls (the backtest's counter salts) must not implement it.
type ConcurrentSigner interface {
	SignWorkers() int
}

// JournalState is an order's state in the journal. The values are package
// state's.
type JournalState string

// Journal states.
const (
	JIntent          JournalState = "intent"
	JSent            JournalState = "sent"
	JLive            JournalState = "live"
	JPartiallyFilled JournalState = "partially_filled"
	JFilled          JournalState = "filled"
	JCanceled        JournalState = "canceled"
	JFailed          JournalState = "failed"
)

// Final reports whether no further change can happen to an order in s.
func (s JournalState) Final() bool { return s == JFilled || s == JCanceled || s == JFailed }

// Intent is an order about to be sent, as the journal records it before the
// send (write-ahead).
type Intent struct {
	Hash        string
	ConditionID string
	TokenID     string
	Outcome     strategy.Outcome
	Side        exchange.Side
	Price, Size decimal.Decimal
	OrderType   exchange.OrderType
	Item        exchange.PlacementItem
}

// Update is one change to a journaled order.
type Update struct {
	Hash        string
	ExchangeID  string // empty when unknown or unchanged
	State       JournalState
	SizeMatched decimal.Decimal
	Err         string
}

// FillRecord is one fill of one of our orders, discovered by the loop.
type FillRecord struct {
	OrderHash    string
	ConditionID  string
	TokenID      string
	Side         exchange.Side
	Price, Size  decimal.Decimal
	MatchedAfter decimal.Decimal // the order's matched size after this fill; with the hash it names the fill
	Time         time.Time
}

// Batch is everything one cycle learned after its sends; a Journal writes it
// in one transaction.
type Batch struct {
	Sent []string // hashes of intents handed to the venue
	// Revived are hashes of orders the journal had marked failed that
	// reached the exchange after all: each goes back to sent before the
	// updates apply (which then carry its real state).
	Revived []string
	Updates []Update
	Fills   []FillRecord
	// Trades are settlement statuses of our trades that changed, applied
	// after the fills (settle.go): a FAILED one takes its fill back.
	Trades []TradeUpdate
	// TradeCursor, when not zero, is the trade history's new cursor: the
	// newest trade the loop took (Config.History).
	TradeCursor time.Time
	Now         time.Time
}

// Empty reports whether b has nothing to write.
func (b *Batch) Empty() bool {
	return len(b.Sent) == 0 && len(b.Revived) == 0 && len(b.Updates) == 0 && len(b.Fills) == 0 && len(b.Trades) == 0 &&
		b.TradeCursor.IsZero()
}

// JournaledOrder is a journaled order, as the loop needs it back after a
// restart.
type JournaledOrder struct {
	Intent
	ExchangeID  string
	State       JournalState
	SizeMatched decimal.Decimal
	CreatedAt   time.Time
}

// Journal is the loop's write-ahead order journal. Package state implements
// it through an adapter in cmd/mmbot.
type Journal interface {
	// RecordIntents durably records orders before they are sent.
	RecordIntents(intents []Intent, now time.Time) error
	// Apply durably records one batch in one transaction.
	Apply(b *Batch) error
	// NonFinal returns every order not in a final state.
	NonFinal() ([]JournaledOrder, error)
	// Positions returns our shares per token id.
	Positions() (map[string]decimal.Decimal, error)
}
