package engine

import (
	"errors"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// Unit is the number of base units in one whole unit of collateral or one
// share: exchange.FixedScale (6 decimals).
const Unit int64 = exchange.FixedScale

// SizeLot is the granularity of order sizes: 0.01 share.
const SizeLot int64 = 10_000

// MaxSize caps one order's size (1,000,000 shares) so that size × price never
// overflows int64.
const MaxSize int64 = 1_000_000 * Unit

// Side is BUY or SELL of the order's own token.
type Side uint8

// Sides.
const (
	Buy Side = iota
	Sell
)

func (s Side) String() string {
	if s == Buy {
		return "BUY"
	}
	return "SELL"
}

// TIF is an order's time in force.
type TIF uint8

// Times in force.
const (
	GTC TIF = iota // rests until cancelled
	GTD            // rests until OrderRequest.Expires
	FOK            // fills completely at once or not at all
	FAK            // fills what it can at once, the rest is cancelled
)

func (t TIF) String() string {
	switch t {
	case GTC:
		return "GTC"
	case GTD:
		return "GTD"
	case FOK:
		return "FOK"
	case FAK:
		return "FAK"
	}
	return "?"
}

// Status is the state of an order.
type Status uint8

// Order states. Live orders rest in the book; the others are final.
const (
	Live     Status = iota // resting, possibly partly filled
	Matched                // completely filled
	Canceled               // cancelled by its owner, expired, killed, self-trade prevention or market resolution
)

func (s Status) String() string {
	switch s {
	case Live:
		return "LIVE"
	case Matched:
		return "MATCHED"
	case Canceled:
		return "CANCELED"
	}
	return "?"
}

// Reason says why an order ended cancelled.
type Reason uint8

// Cancel reasons.
const (
	ReasonNone      Reason = iota
	ReasonUser             // Cancel by the owner
	ReasonExpired          // GTD expiry
	ReasonKilled           // unfilled rest of an FAK order
	ReasonSelfTrade        // resting order met by a taker of the same account
	ReasonResolved         // market resolved or closed
)

// Kind is how a fill settled.
type Kind uint8

// Settlement kinds.
const (
	Transfer Kind = iota // shares of one token moved for collateral
	Mint                 // two buyers of opposite outcomes: a pair minted
	Merge                // two sellers of opposite outcomes: a pair merged
)

func (k Kind) String() string {
	switch k {
	case Transfer:
		return "transfer"
	case Mint:
		return "mint"
	case Merge:
		return "merge"
	}
	return "?"
}

// MarketSpec describes one binary market to the engine.
type MarketSpec struct {
	ID      string    // condition id
	Tokens  [2]string // token ids of outcome 0 and outcome 1
	Tick    int64     // price grid in base units, e.g. 10_000 for 0.01; must divide Unit
	MinSize int64     // minimum order size in base units of shares
}

// OrderRequest is a new order.
type OrderRequest struct {
	ID      string // unique; the exchange uses the order hash
	Account string // owner of the balances used
	Token   string
	Side    Side
	Price   int64 // limit price of the order's own token, base units
	Size    int64 // shares, base units
	TIF     TIF
	Expires time.Time // GTD only: the order is cancelled once now >= Expires
}

// Party is one side of a fill, seen from its own order and token.
type Party struct {
	Order   *Order
	Account string
	Outcome int
	Side    Side
	Price   int64 // execution price of this party's own token
	Amount  int64 // collateral paid (BUY) or received (SELL)
}

// Fill is one match between a taker and a resting maker order.
type Fill struct {
	Seq    uint64 // engine-wide, strictly increasing
	Time   time.Time
	Market string
	Kind   Kind
	Size   int64 // shares of each party's token
	Price0 int64 // execution price in terms of outcome 0 (the maker's)
	Taker  Party
	Maker  Party
}

// Result is the outcome of Place.
type Result struct {
	Order *Order // the order as it stands after matching
	Fills []Fill
	// Making and Taking are the amounts the order gave and got at once:
	// for a BUY, collateral paid and shares received; for a SELL, shares
	// sold and collateral received.
	Making, Taking int64
	// Canceled lists resting orders that self-trade prevention or expiry
	// removed while this order matched.
	Canceled []*Order
}

// Errors of Place, Cancel and the account operations. Callers branch with
// errors.Is.
var (
	ErrUnknownMarket  = errors.New("unknown market")
	ErrUnknownToken   = errors.New("unknown token")
	ErrMarketClosed   = errors.New("market is closed")
	ErrDuplicateOrder = errors.New("duplicate order id")
	ErrBadPrice       = errors.New("invalid price")
	ErrBadSize        = errors.New("invalid size")
	ErrBadTIF         = errors.New("invalid order type")
	ErrExpired        = errors.New("expiry is not in the future")
	ErrBalance        = errors.New("not enough balance")
	ErrFOKUnfilled    = errors.New("FOK order could not be filled completely")
	ErrFAKUnfilled    = errors.New("no resting orders to match the FAK order")
	ErrOrderNotFound  = errors.New("order not found or no longer live")
	ErrNotOwner       = errors.New("order belongs to another account")
	ErrBadAmount      = errors.New("invalid amount")
	ErrDuplicateID    = errors.New("duplicate market or token id")
)
