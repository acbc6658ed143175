package exchange

import (
	"encoding/json"

	"github.com/shopspring/decimal"
)

// This file holds the order-book API's resources ({clob_url}) other than
// the ones in types_core.go. Fields the spec types as numbers decode into
// Number (a JSON number); fields it types as strings that carry amounts,
// prices and sizes decode into decimal.Decimal (a quoted JSON string).

// Cursor values of the order-book lists: a cursor is the base64 of a decimal
// offset; FirstCursor ("0") asks for the first page and EndCursor ("-1")
// means there are no more pages.
const (
	FirstCursor = "MA=="
	EndCursor   = "LTE="
)

// Market is an item of the order-book market list (GET /markets) with the
// trading parameters of a market.
type Market struct {
	EnableOrderBook         bool          `json:"enable_order_book"`
	Active                  bool          `json:"active"`
	Closed                  bool          `json:"closed"`
	Archived                bool          `json:"archived"`
	AcceptingOrders         bool          `json:"accepting_orders"`
	NotificationsEnabled    bool          `json:"notifications_enabled"`
	NegRisk                 bool          `json:"neg_risk"`
	Is5050Outcome           bool          `json:"is_50_50_outcome"`
	AcceptingOrderTimestamp string        `json:"accepting_order_timestamp"`
	ConditionID             string        `json:"condition_id"`
	QuestionID              string        `json:"question_id"`
	Question                string        `json:"question"`
	Description             string        `json:"description"`
	MarketSlug              string        `json:"market_slug"`
	EndDateISO              string        `json:"end_date_iso"`
	GameStartTime           string        `json:"game_start_time"`
	FPMM                    string        `json:"fpmm"`
	NegRiskMarketID         string        `json:"neg_risk_market_id"`
	NegRiskRequestID        string        `json:"neg_risk_request_id"`
	Icon                    string        `json:"icon"`
	Image                   string        `json:"image"`
	MinimumOrderSize        Number        `json:"minimum_order_size"`
	MinimumTickSize         Number        `json:"minimum_tick_size"`
	SecondsDelay            Number        `json:"seconds_delay"`
	MakerBaseFee            Number        `json:"maker_base_fee"`
	TakerBaseFee            Number        `json:"taker_base_fee"`
	Rewards                 Rewards       `json:"rewards"`
	Tokens                  []MarketToken `json:"tokens"`
	Tags                    []string      `json:"tags"`
}

// Rewards are a market's liquidity-reward terms. Project choice (shared with
// the simulated exchange): MaxSpread is in cents (3 means 0.03 of price) and
// MinSize in shares, as on the live exchange.
type Rewards struct {
	Rates     []RewardRate `json:"rates"`
	MinSize   Number       `json:"min_size"`
	MaxSpread Number       `json:"max_spread"`
}

// DailyRate returns the sum of the daily reward rates of all assets.
func (r Rewards) DailyRate() decimal.Decimal {
	sum := decimal.Zero
	for _, rt := range r.Rates {
		sum = sum.Add(rt.RewardsDailyRate.Decimal)
	}
	return sum
}

// RewardRate is the daily reward rate paid in one asset.
type RewardRate struct {
	AssetAddress     string `json:"asset_address"`
	RewardsDailyRate Number `json:"rewards_daily_rate"`
}

// MarketToken is one outcome token of a market.
type MarketToken struct {
	TokenID string `json:"token_id"`
	Outcome string `json:"outcome"`
	Price   Number `json:"price"`
	Winner  bool   `json:"winner"`
}

// MarketsPage is one page of GET /markets.
type MarketsPage struct {
	Data       []Market `json:"data"`
	NextCursor string   `json:"next_cursor"`
	Limit      int      `json:"limit"`
	Count      int      `json:"count"`
}

// Market summary statuses (DESIGN.md §4).
const (
	MarketStatusActive = "active"
	MarketStatusClosed = "closed"
)

// MarketSummary is an item of GET /sampling-markets and
// GET /simplified-markets and the summary shape of GET /markets/{id}. The
// simplified form lacks Description, Event and RawMetadata.
type MarketSummary struct {
	ConditionID string          `json:"condition_id"`
	Status      string          `json:"status"`
	Question    string          `json:"question"`
	Slug        string          `json:"slug"`
	NegRisk     bool            `json:"neg_risk"`
	MarketID    int64           `json:"market_id"`
	AssetsIDs   []string        `json:"assets_ids"`
	Outcomes    []string        `json:"outcomes"`
	Description string          `json:"description,omitempty"`
	Event       *MarketEvent    `json:"event,omitempty"`
	RawMetadata json.RawMessage `json:"raw_metadata,omitempty"`
}

// MarketEvent is the event reference inside a market summary.
type MarketEvent struct {
	ID          string `json:"id"`
	Slug        string `json:"slug"`
	Title       string `json:"title"`
	Ticker      string `json:"ticker"`
	Description string `json:"description"`
}

// SummariesPage is one page of GET /sampling-markets or
// GET /simplified-markets.
type SummariesPage struct {
	Data       []MarketSummary `json:"data"`
	NextCursor string          `json:"next_cursor"`
}

// MarketShape tells which of the two documented shapes of
// GET /markets/{condition_id} arrived.
type MarketShape int

// The two shapes of GET /markets/{condition_id}.
const (
	// ShapeSummary is the market summary shape (with event and raw_metadata).
	ShapeSummary MarketShape = iota + 1
	// ShapeMerged holds every order-book Market field as well.
	ShapeMerged
)

// String names the shape.
func (s MarketShape) String() string {
	switch s {
	case ShapeSummary:
		return "summary"
	case ShapeMerged:
		return "merged"
	}
	return "unknown"
}

// MarketDetail is the body of GET /markets/{condition_id}, which the spec
// documents in two shapes. The summary fields are always filled; Book is set
// only when the merged shape arrived (any order-book-only field present), and
// then holds every order-book Market field. Encoding writes the shape that
// was decoded (or built): the summary alone, or the union of both.
type MarketDetail struct {
	MarketSummary
	Book *Market
}

// Shape reports which shape d holds.
func (d *MarketDetail) Shape() MarketShape {
	if d.Book != nil {
		return ShapeMerged
	}
	return ShapeSummary
}

// orderBookOnlyKeys are keys of the order-book Market that the summary shape
// does not have; any of them marks the merged shape.
var orderBookOnlyKeys = [...]string{
	"enable_order_book", "active", "closed", "archived", "accepting_orders",
	"notifications_enabled", "is_50_50_outcome", "accepting_order_timestamp",
	"question_id", "market_slug", "end_date_iso", "game_start_time", "fpmm",
	"neg_risk_market_id", "neg_risk_request_id", "icon", "image",
	"minimum_order_size", "minimum_tick_size", "seconds_delay",
	"maker_base_fee", "taker_base_fee", "rewards", "tokens", "tags",
}

// UnmarshalJSON decodes either shape.
func (d *MarketDetail) UnmarshalJSON(b []byte) error {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return err
	}
	var s MarketSummary
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	d.MarketSummary, d.Book = s, nil
	for _, k := range orderBookOnlyKeys {
		if _, ok := keys[k]; ok {
			var m Market
			if err := json.Unmarshal(b, &m); err != nil {
				return err
			}
			d.Book = &m
			break
		}
	}
	return nil
}

// MarshalJSON encodes the summary shape, or the merged shape when Book is
// set (the summary's values win where both have a field).
func (d MarketDetail) MarshalJSON() ([]byte, error) {
	if d.Book == nil {
		return json.Marshal(d.MarketSummary)
	}
	var merged map[string]json.RawMessage
	bb, err := json.Marshal(d.Book)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(bb, &merged); err != nil {
		return nil, err
	}
	var sum map[string]json.RawMessage
	sb, err := json.Marshal(d.MarketSummary)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(sb, &sum); err != nil {
		return nil, err
	}
	for k, v := range sum {
		merged[k] = v
	}
	return json.Marshal(merged)
}

// Builder trade statuses (DESIGN.md §4).
const (
	TradeMatched   = "MATCHED"
	TradeMined     = "MINED"
	TradeConfirmed = "CONFIRMED"
	TradeRetrying  = "RETRYING"
	TradeFailed    = "FAILED"
)

// BuilderTrade is one item of GET /builder/trades, in the spec's shape or
// the live exchange's (see UnmarshalJSON in trade_decode.go). A decoded
// trade always has an ID, a Status among the Trade… constants, a MatchTime
// in ISO 8601 and a Type of RoleTaker or RoleMaker.
type BuilderTrade struct {
	ID              string          `json:"id"`
	TakerOrderID    string          `json:"taker_order_id"`
	Market          string          `json:"market"`
	AssetID         string          `json:"asset_id"`
	Side            Side            `json:"side"`
	Size            decimal.Decimal `json:"size"`
	FeeRateBps      decimal.Decimal `json:"fee_rate_bps"`
	Price           decimal.Decimal `json:"price"`
	Status          string          `json:"status"`
	MatchTime       string          `json:"match_time"`
	LastUpdate      string          `json:"last_update"`
	Outcome         string          `json:"outcome"`
	BucketIndex     int             `json:"bucket_index"`
	MakerAddress    string          `json:"maker_address"`
	Owner           string          `json:"owner"`
	TransactionHash string          `json:"transaction_hash"`
	MakerOrders     []MakerOrder    `json:"maker_orders"`
	Type            string          `json:"type"` // RoleTaker or RoleMaker, from type or trader_side
	// TraderSide is the live exchange's name of the role (TAKER, MAKER),
	// kept as sent; the spec's shape has none, so it is written only when
	// set.
	TraderSide string `json:"trader_side,omitempty"`
}

// MakerOrder is one resting order matched by a builder trade.
type MakerOrder struct {
	OrderID       string          `json:"order_id"`
	MakerAddress  string          `json:"maker_address"`
	Owner         string          `json:"owner"`
	MatchedAmount decimal.Decimal `json:"matched_amount"`
	FeeRateBps    decimal.Decimal `json:"fee_rate_bps"`
	Price         decimal.Decimal `json:"price"`
	AssetID       string          `json:"asset_id"`
	Outcome       string          `json:"outcome"`
	Side          Side            `json:"side"`
}

// BuilderTradesPage is one page of GET /builder/trades. The spec's body is a
// bare array; the client derives NextCursor from the cursor it sent (see
// docs/protocol.md). A server may also answer {data, next_cursor}.
type BuilderTradesPage struct {
	Data       []BuilderTrade `json:"data"`
	NextCursor string         `json:"next_cursor"`
}

// Order is an order as read by GET /data/order/{id}, in the spec's
// camelCase or the live exchange's snake_case (see UnmarshalJSON). A
// decoded Order always has an ID, a Status that is one of StatusLive,
// StatusMatched and StatusCanceled, and OriginalSize, SizeMatched and Price
// as they were sent; CreatedAt and UpdatedAt are ISO 8601 (a live Unix
// count is rewritten).
type Order struct {
	AssociateTrades []string        `json:"associateTrades"`
	ID              string          `json:"id"`
	Status          string          `json:"status"`
	Market          string          `json:"market"`
	OriginalSize    decimal.Decimal `json:"originalSize"`
	Outcome         string          `json:"outcome"`
	MakerAddress    string          `json:"makerAddress"`
	Owner           string          `json:"owner"`
	Price           decimal.Decimal `json:"price"`
	Side            Side            `json:"side"`
	SizeMatched     decimal.Decimal `json:"sizeMatched"`
	AssetID         string          `json:"assetId"`
	Type            OrderType       `json:"type"`
	CreatedAt       string          `json:"createdAt"`
	UpdatedAt       string          `json:"updatedAt"`
	// Expiration is the live exchange's field (Unix seconds, "0" for
	// none); the spec's order has none, so it is written only when set.
	Expiration string `json:"expiration,omitempty"`
}

// OrderEnvelope is the body of GET /data/order/{id}: {"order": {...}} as
// the spec shows it, or the order unwrapped as the live exchange sends it
// (order_decode.go reads both; it encodes the spec's shape).
type OrderEnvelope struct {
	Order Order `json:"order"`
}
