package exchange

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Where the spec leaves a format open, the order-book API's other bodies
// are read tolerantly too (docs/protocol.md, Live shapes): a book's
// min_order_size, tick_size and last_trade_price may be "" (no value, as
// null is), and a placement result's status may come in any case.

// optDecimal is a decimal that reads "" and null as no value (zero).
type optDecimal struct{ decimal.Decimal }

func (d *optDecimal) UnmarshalJSON(b []byte) error {
	if t := bytes.TrimSpace(b); string(t) == `""` {
		d.Decimal = decimal.Decimal{}
		return nil
	}
	return d.Decimal.UnmarshalJSON(b)
}

// tolerantBook is an OrderBook whose min_order_size, tick_size and
// last_trade_price may be "".
type tolerantBook struct {
	OrderBook
	MinOrderSize   optDecimal `json:"min_order_size"`
	TickSize       optDecimal `json:"tick_size"`
	LastTradePrice optDecimal `json:"last_trade_price"`
}

// decodeBooks reads the body of POST /books. A book's min_order_size,
// tick_size or last_trade_price may be "" (ValidateBook then names the
// terms as absent). A body without any "" takes the plain decoder, so the
// common case costs what it always did (BenchmarkDecodeBooks).
func decodeBooks(body []byte) ([]OrderBook, error) {
	var out []OrderBook
	if !bytes.Contains(body, []byte(`""`)) {
		err := json.Unmarshal(body, &out)
		return out, err
	}
	var tb []tolerantBook
	if err := json.Unmarshal(body, &tb); err != nil {
		return nil, err
	}
	if tb == nil {
		return nil, nil
	}
	out = make([]OrderBook, len(tb))
	for i, t := range tb {
		out[i] = t.OrderBook
		out[i].MinOrderSize, out[i].TickSize, out[i].LastTradePrice = t.MinOrderSize.Decimal, t.TickSize.Decimal, t.LastTradePrice.Decimal
	}
	return out, nil
}

// Time returns the time of the book's timestamp, which the spec sends as a
// string in a format it does not show: the live exchange writes Unix
// milliseconds; Unix seconds and ISO 8601 are read too (ParseWireTime).
// ok is false for an empty or unreadable timestamp.
func (b *OrderBook) Time() (time.Time, bool) {
	return ParseWireTime(b.Timestamp)
}

// UnmarshalJSON reads a placement result with its status in any case: the
// spec's statuses are lower case (PlaceLive, …), and a status in another
// case is the same status. A status this version does not know is kept as
// sent, lower-cased: callers treat it as saying nothing certain.
func (r *PlacementResult) UnmarshalJSON(data []byte) error {
	type plain PlacementResult
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	p.Status = strings.ToLower(strings.TrimSpace(p.Status))
	*r = PlacementResult(p)
	return nil
}
