package recording

import (
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

// wireLine is the union of every field an event line may hold (see
// docs/data-format.md). Unknown fields are ignored, so a later writer may add
// optional fields without a version bump.
type wireLine struct {
	Kind     string                `json:"kind"`
	Token    string                `json:"token"`
	Market   string                `json:"market"`
	TsMs     int64                 `json:"ts_ms"`
	RecvNs   int64                 `json:"recv_ns"`
	Bids     []exchange.PriceLevel `json:"bids"`
	Asks     []exchange.PriceLevel `json:"asks"`
	Tick     decimal.Decimal       `json:"tick"`
	MinSize  decimal.Decimal       `json:"min_size"`
	Price    decimal.Decimal       `json:"price"`
	Size     decimal.Decimal       `json:"size"`
	Taker    exchange.Side         `json:"taker"`
	EndDate  string                `json:"end_date"`
	Resolved bool                  `json:"resolved"`
	Payout   decimal.Decimal       `json:"payout"`

	RewardMaxSpread decimal.Decimal `json:"reward_max_spread"`
	RewardMinSize   decimal.Decimal `json:"reward_min_size"`
	RewardDailyRate decimal.Decimal `json:"reward_daily_rate"`

	SecondsDelay int64  `json:"seconds_delay"`
	NegRisk      bool   `json:"neg_risk"`
	Question     string `json:"question"`
	Slug         string `json:"slug"`

	// fxBids and fxAsks are the book's levels in Fixed units, set by the
	// line decoder (not by encoding/json); see Book.fx.
	fxBids, fxAsks []Level
	hasFx          bool
}

// ParseLine decodes one event line (without its newline) and validates it.
func ParseLine(line []byte) (Event, error) {
	return parseLine(line, nil)
}

func parseLine(line []byte, cache *decimalCache) (Event, error) {
	w := wireLine{hasFx: true}
	if cache != nil {
		w.fxBids, w.fxAsks = cache.fxBids[:0], cache.fxAsks[:0]
		defer func() { cache.fxBids, cache.fxAsks = w.fxBids, w.fxAsks }()
	}
	if err := decodeLine(line, &w, cache); err != nil {
		return Event{}, fmt.Errorf("decode: %w", err)
	}
	return w.event()
}

// event builds and validates the event a decoded line describes.
func (w *wireLine) event() (Event, error) {
	if w.TsMs < 0 || w.RecvNs < 0 {
		return Event{}, invalid("negative timestamp")
	}
	st := Stamp{Exchange: fromMillis(w.TsMs), Received: fromNanos(w.RecvNs)}
	var e Event
	switch w.Kind {
	case "book":
		b := &Book{Stamp: st, TokenID: w.Token, Market: w.Market,
			Bids: NonNil(w.Bids), Asks: NonNil(w.Asks), TickSize: w.Tick, MinOrderSize: w.MinSize}
		if w.hasFx && len(w.fxBids) == len(b.Bids) && len(w.fxAsks) == len(b.Asks) {
			fx := make([]Level, len(w.fxBids)+len(w.fxAsks))
			n := copy(fx, w.fxBids)
			copy(fx[n:], w.fxAsks)
			b.fx = &FixedBook{Bids: fx[:n:n], Asks: fx[n:]}
		}
		e = BookEvent(b)
	case "trade":
		e = TradeEvent(&Trade{Stamp: st, TokenID: w.Token, Market: w.Market,
			Price: w.Price, Size: w.Size, TakerSide: w.Taker})
	case "meta":
		m := &Meta{Stamp: st, TokenID: w.Token, Market: w.Market, TickSize: w.Tick,
			MinOrderSize: w.MinSize, Resolved: w.Resolved, Payout: w.Payout,
			RewardMaxSpread: w.RewardMaxSpread, RewardMinSize: w.RewardMinSize, RewardDailyRate: w.RewardDailyRate,
			SecondsDelay: w.SecondsDelay, NegRisk: w.NegRisk, Question: w.Question, Slug: w.Slug}
		if w.EndDate != "" {
			t, err := parseEndDate(w.EndDate)
			if err != nil {
				return Event{}, err
			}
			m.EndDate = t
		}
		e = MetaEvent(m)
	case "":
		return Event{}, invalid("line without kind")
	default:
		return Event{}, invalid("unknown kind %q", w.Kind)
	}
	if err := e.Validate(); err != nil {
		return Event{}, err
	}
	return e, nil
}

func NonNil(l []exchange.PriceLevel) []exchange.PriceLevel {
	if l == nil {
		return []exchange.PriceLevel{}
	}
	return l
}

func fromMillis(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

func fromNanos(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}

// AppendLine appends the JSON line of e (with its trailing newline) to b. It
// does not validate e. The exchange time is written in whole milliseconds and
// the receive time in nanoseconds.
func AppendLine(b []byte, e Event) []byte {
	b = append(b, `{"kind":"`...)
	b = append(b, e.Kind.String()...)
	b = append(b, '"')
	switch e.Kind {
	case KindBook:
		bk := e.Book
		b = appendCommon(b, bk.TokenID, bk.Market, bk.Stamp)
		b = appendDecField(b, "tick", bk.TickSize)
		b = appendDecField(b, "min_size", bk.MinOrderSize)
		b = appendLevels(b, "bids", bk.Bids)
		b = appendLevels(b, "asks", bk.Asks)
	case KindTrade:
		t := e.Trade
		b = appendCommon(b, t.TokenID, t.Market, t.Stamp)
		b = append(b, `,"price":`...)
		b = appendDecimal(b, t.Price)
		b = append(b, `,"size":`...)
		b = appendDecimal(b, t.Size)
		if t.TakerSide != "" {
			b = append(b, `,"taker":`...)
			b = appendJSONString(b, string(t.TakerSide))
		}
	case KindMeta:
		m := e.Meta
		b = appendCommon(b, m.TokenID, m.Market, m.Stamp)
		b = appendDecField(b, "tick", m.TickSize)
		b = appendDecField(b, "min_size", m.MinOrderSize)
		if !m.EndDate.IsZero() {
			b = append(b, `,"end_date":"`...)
			b = m.EndDate.UTC().AppendFormat(b, time.RFC3339Nano)
			b = append(b, '"')
		}
		if m.Resolved {
			b = append(b, `,"resolved":true,"payout":`...)
			b = appendDecimal(b, m.Payout)
		}
		b = appendDecField(b, "reward_max_spread", m.RewardMaxSpread)
		b = appendDecField(b, "reward_min_size", m.RewardMinSize)
		b = appendDecField(b, "reward_daily_rate", m.RewardDailyRate)
		if m.SecondsDelay != 0 {
			b = append(b, `,"seconds_delay":`...)
			b = strconv.AppendInt(b, m.SecondsDelay, 10)
		}
		if m.NegRisk {
			b = append(b, `,"neg_risk":true`...)
		}
		if m.Question != "" {
			b = append(b, `,"question":`...)
			b = appendJSONString(b, m.Question)
		}
		if m.Slug != "" {
			b = append(b, `,"slug":`...)
			b = appendJSONString(b, m.Slug)
		}
	}
	return append(b, '}', '\n')
}

func appendCommon(b []byte, token, market string, st Stamp) []byte {
	if token != "" {
		b = append(b, `,"token":`...)
		b = appendJSONString(b, token)
	}
	if market != "" {
		b = append(b, `,"market":`...)
		b = appendJSONString(b, market)
	}
	if !st.Exchange.IsZero() {
		b = append(b, `,"ts_ms":`...)
		b = strconv.AppendInt(b, st.Exchange.UnixMilli(), 10)
	}
	if !st.Received.IsZero() {
		b = append(b, `,"recv_ns":`...)
		b = strconv.AppendInt(b, st.Received.UnixNano(), 10)
	}
	return b
}

func appendDecField(b []byte, name string, d decimal.Decimal) []byte {
	if d.IsZero() {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendDecimal(b, d)
}

func appendLevels(b []byte, name string, lv []exchange.PriceLevel) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, `":[`...)
	for i := range lv {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"price":`...)
		b = appendDecimal(b, lv[i].Price)
		b = append(b, `,"size":`...)
		b = appendDecimal(b, lv[i].Size)
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendDecimal writes d as a quoted decimal string. It does not depend on
// the decimal package's global MarshalJSONWithoutQuotes switch.
func appendDecimal(b []byte, d decimal.Decimal) []byte {
	if f, err := exchange.FixedFromDecimal(d); err == nil {
		b = append(b, '"')
		b = f.AppendText(b)
		return append(b, '"')
	}
	b = append(b, '"')
	b = append(b, d.String()...)
	return append(b, '"')
}

// appendJSONString appends s as a JSON string; invalid UTF-8 becomes U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
