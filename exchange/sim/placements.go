package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/mmbot/mmbot/exchange"
)

// The POST /orders body as the simulator reads it. The spec types every
// field of an order as a string, salt too, and this project's client sends
// exactly that. The official client libraries send order.salt as a JSON
// number (an integer), and the live exchange takes it: so does the
// simulator, which stands in for the live exchange (docs/simulator.md,
// "More lenient than the spec"). Everything else stays strict: unknown keys
// only where placementLenient says, no duplicate keys, no other field in
// another JSON type.

// placementWire is one item of a POST /orders body: exchange.PlacementItem
// with orderWire for its order.
type placementWire struct {
	Order     orderWire          `json:"order"`
	OrderType exchange.OrderType `json:"orderType"`
	Owner     string             `json:"owner"`
}

// orderWire is exchange.SignedOrder whose salt may also be a JSON integer.
// The embedded struct comes first so that the strict walker's field map
// takes Salt from this type (as encoding/json does: the shallower field
// wins).
type orderWire struct {
	exchange.SignedOrder
	Salt wireSalt `json:"salt"`
}

// wireSalt is a salt sent as a JSON string (any content: the order's
// verification judges it) or as a JSON number that is a non-negative
// integer written in plain digits (what the official client's
// parseInt(salt) serialises to).
type wireSalt string

// UnmarshalJSON reads a string or a plain non-negative integer.
func (s *wireSalt) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = wireSalt(v)
		return nil
	}
	if string(b) == "null" {
		*s = ""
		return nil
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return fmt.Errorf("order.salt: the JSON number %.40s is not a non-negative integer in plain digits (send the salt as a string)", b)
		}
	}
	if len(b) == 0 || (len(b) > 1 && b[0] == '0') {
		return fmt.Errorf("order.salt: the JSON number %.40s is not a non-negative integer in plain digits (send the salt as a string)", b)
	}
	*s = wireSalt(b)
	return nil
}

// placementLenient are the types of a POST /orders body whose unknown
// fields are ignored, as the live service ignores them: the official client
// sends deferExec and postOnly in each item and expiration (and taker) in
// its order.
var placementLenient = []reflect.Type{reflect.TypeFor[placementWire](), reflect.TypeFor[orderWire]()}

// decodePlacements reads a POST /orders body exactly (decodeStrict).
func decodePlacements(body []byte) ([]exchange.PlacementItem, error) {
	var ws []placementWire
	if err := decodeStrict(body, &ws, placementLenient...); err != nil {
		return nil, err
	}
	return placementItems(ws), nil
}

// placementItems converts the wire items into the exchange's type.
func placementItems(ws []placementWire) []exchange.PlacementItem {
	if ws == nil {
		return nil
	}
	out := make([]exchange.PlacementItem, len(ws))
	for i, w := range ws {
		o := w.Order.SignedOrder
		o.Salt = string(w.Order.Salt)
		out[i] = exchange.PlacementItem{Order: o, OrderType: w.OrderType, Owner: w.Owner}
	}
	return out
}
