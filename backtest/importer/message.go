package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

// wsMessage is the union of the exchange's public market-channel message
// shapes that the importer understands (see docs/data-format.md):
// book, price_change (the price_changes shape, the older asset_id/changes
// shape and the oldest flat shape with price, side and size at the top
// level), last_trade_price, tick_size_change and
// market_resolved. Other event types are counted and skipped.
type wsMessage struct {
	EventType      string     `json:"event_type"`
	AssetID        string     `json:"asset_id"`
	Market         string     `json:"market"`
	Timestamp      wsTime     `json:"timestamp"`
	Bids           []wsLevel  `json:"bids"`
	Asks           []wsLevel  `json:"asks"`
	Buys           []wsLevel  `json:"buys"`  // older name of bids
	Sells          []wsLevel  `json:"sells"` // older name of asks
	TickSize       wsDec      `json:"tick_size"`
	MinOrderSize   wsDec      `json:"min_order_size"`
	Price          wsDec      `json:"price"`
	Size           wsDec      `json:"size"`
	Side           string     `json:"side"`
	BestBid        wsDec      `json:"best_bid"` // on the flat price_change shape
	BestAsk        wsDec      `json:"best_ask"`
	Changes        []wsChange `json:"changes"`
	PriceChanges   []wsChange `json:"price_changes"`
	NewTickSize    wsDec      `json:"new_tick_size"`
	AssetsIDs      []string   `json:"assets_ids"`
	WinningAssetID string     `json:"winning_asset_id"`
}

type wsLevel struct {
	Price wsDec `json:"price"`
	Size  wsDec `json:"size"`
}

type wsChange struct {
	AssetID string `json:"asset_id"`
	Price   wsDec  `json:"price"`
	Size    wsDec  `json:"size"`
	Side    string `json:"side"`
	// The token's best prices after the change (price_changes shape).
	BestBid wsDec `json:"best_bid"`
	BestAsk wsDec `json:"best_ask"`
}

// wsDec is a decimal that travels as a string (or a number); "" and null
// mean absent (zero).
type wsDec struct {
	decimal.Decimal
	Set bool
}

func (d *wsDec) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" || string(b) == `""` {
		*d = wsDec{}
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		s, err := strconv.Unquote(string(b))
		if err != nil {
			return fmt.Errorf("decimal %s: %w", b, err)
		}
		b = []byte(s)
	}
	v, err := decimal.NewFromString(string(b))
	if err == nil {
		// Bound the value (and the cost of later arithmetic on it): the
		// recording format holds at most 6 decimal places.
		_, err = exchange.FixedFromDecimal(v)
	}
	if err != nil {
		return fmt.Errorf("decimal %q: %w", b, err)
	}
	*d = wsDec{Decimal: v, Set: true}
	return nil
}

// wsTime is a Unix timestamp in milliseconds, as a string or a number. A
// value below 1e11 is taken as seconds (a millisecond timestamp that small
// would be in 1973).
type wsTime struct{ time.Time }

func (t *wsTime) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" || string(b) == `""` {
		*t = wsTime{}
		return nil
	}
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		u, err := strconv.Unquote(s)
		if err != nil {
			return fmt.Errorf("timestamp %s: %w", b, err)
		}
		s = u
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || f < 0 || f > 1e15 {
			return fmt.Errorf("timestamp %q: not a Unix time", s)
		}
		n = int64(f)
	}
	switch {
	case n <= 0:
		return fmt.Errorf("timestamp %q: not positive", s)
	case n < 1e11:
		t.Time = time.Unix(n, 0).UTC()
	case n < 1e15:
		t.Time = time.UnixMilli(n).UTC()
	default:
		return fmt.Errorf("timestamp %q: out of range", s)
	}
	return nil
}

// decodeMessage decodes one message object.
func decodeMessage(raw json.RawMessage) (wsMessage, error) {
	var m wsMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return wsMessage{}, err
	}
	return m, nil
}
