package exchange

import (
	"net/http"
	"slices"

	"github.com/shopspring/decimal"
)

// Side is the side of an order or trade on the wire: "BUY" or "SELL".
type Side string

// Order sides.
const (
	Buy  Side = "BUY"
	Sell Side = "SELL"
)

// Valid reports whether s is BUY or SELL.
func (s Side) Valid() bool { return s == Buy || s == Sell }

// Opposite returns the other side.
func (s Side) Opposite() Side {
	if s == Buy {
		return Sell
	}
	return Buy
}

// OrderType is the time-in-force of an order.
type OrderType string

// Order types (DESIGN.md §4). The bot quotes with GTC.
const (
	GTC OrderType = "GTC" // good till cancelled
	GTD OrderType = "GTD" // good till date
	FOK OrderType = "FOK" // fill or kill
	FAK OrderType = "FAK" // fill and kill (immediate or cancel)
)

// Valid reports whether t is one of the four order types.
func (t OrderType) Valid() bool { return t == GTC || t == GTD || t == FOK || t == FAK }

// Order statuses as returned by GET /data/order/{id}.
const (
	StatusLive     = "LIVE"
	StatusMatched  = "MATCHED"
	StatusCanceled = "CANCELED"
)

// Placement result statuses as returned by POST /orders.
const (
	PlaceLive      = "live"
	PlaceMatched   = "matched"
	PlaceDelayed   = "delayed"
	PlaceUnmatched = "unmatched"
)

// PriceLevel is one level of an order book; price and size travel as strings.
type PriceLevel struct {
	Price decimal.Decimal `json:"price"`
	Size  decimal.Decimal `json:"size"`
}

// OrderBook is one token's book as returned by POST /books.
type OrderBook struct {
	Market         string          `json:"market"`
	AssetID        string          `json:"asset_id"`
	Timestamp      string          `json:"timestamp"`
	Hash           string          `json:"hash"`
	Bids           []PriceLevel    `json:"bids"`
	Asks           []PriceLevel    `json:"asks"`
	MinOrderSize   decimal.Decimal `json:"min_order_size"`
	TickSize       decimal.Decimal `json:"tick_size"`
	NegRisk        bool            `json:"neg_risk"`
	LastTradePrice decimal.Decimal `json:"last_trade_price"`
}

// Normalize sorts the book in place so that Bids[0] is the best (highest) bid
// and Asks[0] the best (lowest) ask, whatever order the levels arrived in.
// A book already in order (as the exchange sends it: worst first) is
// checked, or reversed, without sorting.
func (b *OrderBook) Normalize() {
	normalizeSide(b.Bids, func(x, y PriceLevel) int { return y.Price.Cmp(x.Price) })
	normalizeSide(b.Asks, func(x, y PriceLevel) int { return x.Price.Cmp(y.Price) })
}

// normalizeSide sorts levels best first (cmp < 0: x before y), stably.
// Levels already in that order stay as they are; levels in the reverse
// order (strictly) are reversed; others are sorted (slices.SortStableFunc:
// no reflection or allocation).
func normalizeSide(levels []PriceLevel, cmp func(x, y PriceLevel) int) {
	sorted, reversed := true, true
	for i := 1; i < len(levels) && (sorted || reversed); i++ {
		c := cmp(levels[i-1], levels[i])
		sorted = sorted && c <= 0
		reversed = reversed && c > 0
	}
	switch {
	case sorted:
	case reversed:
		slices.Reverse(levels)
	default:
		slices.SortStableFunc(levels, cmp)
	}
}

// TokenRef is one item of the POST /books and POST /spreads request bodies.
type TokenRef struct {
	TokenID string `json:"token_id"`
}

// SignedOrder is the signed order inside a placement item. Every field is a
// string on the wire except SignatureType (DESIGN.md §4): amounts are integer
// base units with 6 decimals, Timestamp is Unix milliseconds, Metadata and
// Builder are 0x-prefixed 32-byte hex. ConditionID travels but is not signed.
type SignedOrder struct {
	Salt          string `json:"salt"`
	Maker         string `json:"maker"`
	Signer        string `json:"signer"`
	TokenID       string `json:"tokenId"`
	ConditionID   string `json:"conditionId"`
	MakerAmount   string `json:"makerAmount"`
	TakerAmount   string `json:"takerAmount"`
	Side          Side   `json:"side"`
	SignatureType int    `json:"signatureType"`
	Timestamp     string `json:"timestamp"`
	Metadata      string `json:"metadata"`
	Builder       string `json:"builder"`
	Signature     string `json:"signature"`
}

// PlacementItem is one element of the POST /orders request body.
type PlacementItem struct {
	Order     SignedOrder `json:"order"`
	OrderType OrderType   `json:"orderType"`
	Owner     string      `json:"owner"`
}

// PlacementResult is one element of the POST /orders response body, in the
// order of the request's items.
type PlacementResult struct {
	Success      bool   `json:"success"`
	ErrorMsg     string `json:"errorMsg"`
	OrderID      string `json:"orderID"`
	TakingAmount string `json:"takingAmount"`
	MakingAmount string `json:"makingAmount"`
	Status       string `json:"status"`
}

// CancelRequest is the DELETE /order request body.
type CancelRequest struct {
	OrderID string `json:"orderId"`
}

// CancelResult is the DELETE /order response body.
type CancelResult struct {
	Canceled    []string          `json:"canceled"`
	NotCanceled map[string]string `json:"not_canceled"`
}

// Authenticated-call header names (spec, Authentication).
const (
	HeaderAddress    = "SVC_ADDRESS"
	HeaderAPIKey     = "SVC_API_KEY"
	HeaderPassphrase = "SVC_PASSPHRASE"
	HeaderTimestamp  = "SVC_TIMESTAMP"
	HeaderSignature  = "SVC_SIGNATURE"
)

// Authenticator supplies the five SVC_ headers of an authenticated call
// (POST /orders, DELETE /order, GET /data/order/{id}). path is the request
// path without query string and body the exact bytes that will be sent.
// Package signer implements it.
type Authenticator interface {
	AuthHeaders(method, path string, body []byte) (http.Header, error)
}
