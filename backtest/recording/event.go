package recording

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// Kind says which member of an Event is set.
type Kind uint8

// Event kinds. The zero Kind is invalid.
const (
	KindBook  Kind = iota + 1 // a full book snapshot of one token
	KindTrade                 // one trade print
	KindMeta                  // a change of market metadata
)

// String returns the kind's name as written in a recording.
func (k Kind) String() string {
	switch k {
	case KindBook:
		return "book"
	case KindTrade:
		return "trade"
	case KindMeta:
		return "meta"
	}
	return "invalid"
}

// Stamp is the pair of timestamps every event carries.
type Stamp struct {
	// Exchange is the exchange's timestamp (millisecond precision); zero when
	// the source did not give one.
	Exchange time.Time
	// Received is when the recorder received the event (nanosecond
	// precision); zero for imported data.
	Received time.Time
}

// Time is the event's time for replay ordering: Received when set, else
// Exchange. A recording's events are in non-decreasing Time order.
func (s Stamp) Time() time.Time {
	if !s.Received.IsZero() {
		return s.Received
	}
	return s.Exchange
}

// Book is a full snapshot of one token's order book. Bids are best (highest)
// first and Asks best (lowest) first, as after exchange.OrderBook.Normalize.
//
// A Book read from a recording also carries its levels in Fixed units, for
// the replay's fast path (FixedBook.SetFrom copies them instead of
// converting every decimal): treat a Book from a Reader as read-only.
type Book struct {
	Stamp
	TokenID      string
	Market       string
	Bids         []exchange.PriceLevel
	Asks         []exchange.PriceLevel
	TickSize     decimal.Decimal // zero when unknown
	MinOrderSize decimal.Decimal // zero when unknown

	fx *FixedBook // the levels in Fixed units, as decoded; nil when built by hand
}

// Trade is one trade print.
type Trade struct {
	Stamp
	TokenID   string
	Market    string
	Price     decimal.Decimal
	Size      decimal.Decimal
	TakerSide exchange.Side // BUY, SELL, or "" when the source does not say
}

// Meta is a change of market metadata. Zero fields are "unchanged". A Meta
// with TokenID empty applies to every token of Market (an end date, say).
type Meta struct {
	Stamp
	TokenID      string
	Market       string
	TickSize     decimal.Decimal // new tick size; zero: unchanged
	MinOrderSize decimal.Decimal // new minimum order size; zero: unchanged
	EndDate      time.Time       // the market's end date; zero: unchanged
	Resolved     bool            // the token has resolved and pays Payout per share
	Payout       decimal.Decimal // 1 for the winning token, 0 for a losing one

	// The market's liquidity-reward terms, as the exchange publishes them;
	// zero: unchanged. RewardMaxSpread is in cents (3 means 0.03 of price),
	// RewardMinSize in shares, RewardDailyRate the pool per day.
	RewardMaxSpread decimal.Decimal
	RewardMinSize   decimal.Decimal
	RewardDailyRate decimal.Decimal

	// SecondsDelay is the market's matching delay in seconds (the
	// exchange's seconds_delay): an order placed at t can match from
	// t + delay on, and its placement answers "delayed"; zero: unchanged.
	SecondsDelay int64
	// NegRisk marks a market of the exchange's neg-risk kind; false:
	// unchanged.
	NegRisk bool
	// Question and Slug are the market's question and slug, as the
	// catalog gives them (a report heads the market by its question);
	// empty: unchanged.
	Question string
	Slug     string
}

// MaxSecondsDelay bounds Meta.SecondsDelay: a day.
const MaxSecondsDelay = 86400

// MaxMetaText bounds the bytes of Meta.Question and Meta.Slug.
const MaxMetaText = 4096

// Event is one record of a recording: a tagged union in which exactly the
// member named by Kind is non-nil.
type Event struct {
	Kind  Kind
	Book  *Book
	Trade *Trade
	Meta  *Meta
}

// BookEvent wraps b as an Event.
func BookEvent(b *Book) Event { return Event{Kind: KindBook, Book: b} }

// TradeEvent wraps t as an Event.
func TradeEvent(t *Trade) Event { return Event{Kind: KindTrade, Trade: t} }

// MetaEvent wraps m as an Event.
func MetaEvent(m *Meta) Event { return Event{Kind: KindMeta, Meta: m} }

// stamp returns the event's timestamps, or nil for an invalid event.
func (e Event) stamp() *Stamp {
	switch {
	case e.Kind == KindBook && e.Book != nil:
		return &e.Book.Stamp
	case e.Kind == KindTrade && e.Trade != nil:
		return &e.Trade.Stamp
	case e.Kind == KindMeta && e.Meta != nil:
		return &e.Meta.Stamp
	}
	return nil
}

// Time is the event's replay time (see Stamp.Time); zero for an invalid event.
func (e Event) Time() time.Time {
	if s := e.stamp(); s != nil {
		return s.Time()
	}
	return time.Time{}
}

// TokenID is the token the event is about ("" for a market-wide Meta or an
// invalid event).
func (e Event) TokenID() string {
	switch {
	case e.Kind == KindBook && e.Book != nil:
		return e.Book.TokenID
	case e.Kind == KindTrade && e.Trade != nil:
		return e.Trade.TokenID
	case e.Kind == KindMeta && e.Meta != nil:
		return e.Meta.TokenID
	}
	return ""
}
