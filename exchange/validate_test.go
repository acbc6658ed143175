package exchange

import (
	"errors"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

func lv(price, size string) PriceLevel {
	return PriceLevel{Price: decimal.RequireFromString(price), Size: decimal.RequireFromString(size)}
}

// goodBook is an honest book as the exchange sends it: best last.
func goodBook() OrderBook {
	return OrderBook{AssetID: "123", TickSize: decimal.RequireFromString("0.01"), MinOrderSize: decimal.RequireFromString("5"),
		Bids: []PriceLevel{lv("0.45", "100"), lv("0.47", "20.5")},
		Asks: []PriceLevel{lv("0.55", "100"), lv("0.52", "0")}}
}

// TestValidateBook: an honest book passes in either order of its levels;
// each kind of garbage measured against the daemon (sizes of −1000 or
// 1e300, a tick of 0, −0.01, 0.7 or 1e-30, a minimum size of 1e12, prices
// below 0 or above 1) and the structural faults (unsorted, crossed) is
// refused with its reason and a detail naming the value.
func TestValidateBook(t *testing.T) {
	if b := goodBook(); ValidateBook(&b) != nil {
		t.Fatalf("honest book refused: %v", ValidateBook(&b))
	}
	b := goodBook()
	b.Normalize()
	if err := ValidateBook(&b); err != nil {
		t.Fatalf("honest book, best first, refused: %v", err)
	}
	b = goodBook()
	b.Bids, b.Asks = nil, nil
	if err := ValidateBook(&b); err != nil {
		t.Fatalf("empty book refused: %v", err)
	}
	b = goodBook()
	b.TickSize = decimal.RequireFromString("0.1") // levels of a finer, older grid stay honest
	if err := ValidateBook(&b); err != nil {
		t.Fatalf("levels off a coarser new tick refused: %v", err)
	}

	cases := []struct {
		name   string
		edit   func(*OrderBook)
		reason string
		detail string
	}{
		{"size -1000", func(b *OrderBook) { b.Bids[0].Size = decimal.NewFromInt(-1000) }, InvalidSize, `bids[0].size "-1000" is negative`},
		{"size 1e300", func(b *OrderBook) { b.Asks[1].Size = decimal.RequireFromString("1e300") }, InvalidSize, `"1e300" is above`},
		{"size 1e9999", func(b *OrderBook) { b.Asks[1].Size = decimal.RequireFromString("1e9999") }, InvalidSize, `"1e9999"`},
		{"size of 100 digits", func(b *OrderBook) { b.Asks[1].Size = decimal.RequireFromString(strings.Repeat("9", 100)) }, InvalidSize, "(100 digits)"},
		{"price 5e-9999", func(b *OrderBook) { b.Bids[0].Price = decimal.RequireFromString("5e-9999") }, InvalidPrice, `"5e-9999"`},
		{"size 7 decimals", func(b *OrderBook) { b.Asks[1].Size = decimal.RequireFromString("1.0000001") }, InvalidSize, "more than 6 decimals"},
		{"tick 0", func(b *OrderBook) { b.TickSize = decimal.Zero }, InvalidTick, "tick_size is absent (or 0)"},
		{"tick -0.01", func(b *OrderBook) { b.TickSize = decimal.RequireFromString("-0.01") }, InvalidTick, `"-0.01"`},
		{"tick 0.7", func(b *OrderBook) { b.TickSize = decimal.RequireFromString("0.7") }, InvalidTick, `"0.7"`},
		{"tick 1e-30", func(b *OrderBook) { b.TickSize = decimal.RequireFromString("1e-30") }, InvalidTick, `"0.0000000000…0001 (32 digits)"`},
		{"tick 1e-9999", func(b *OrderBook) { b.TickSize = decimal.RequireFromString("1e-9999") }, InvalidTick, `"1e-9999"`},
		{"min size 1e12", func(b *OrderBook) { b.MinOrderSize = decimal.RequireFromString("1e12") }, InvalidMinSize, `"1000000000000"`},
		{"min size 0", func(b *OrderBook) { b.MinOrderSize = decimal.Zero }, InvalidMinSize, "min_order_size is absent (or 0)"},
		{"min size -1", func(b *OrderBook) { b.MinOrderSize = decimal.NewFromInt(-1) }, InvalidMinSize, "not in (0, 1000000]"},
		{"price -0.5", func(b *OrderBook) { b.Bids[0].Price = decimal.RequireFromString("-0.5") }, InvalidPrice, `bids[0].price "-0.5" is outside`},
		{"price 1.5", func(b *OrderBook) { b.Asks[0].Price = decimal.RequireFromString("1.5") }, InvalidPrice, `asks[0].price "1.5"`},
		{"price 1", func(b *OrderBook) { b.Asks[0].Price = decimal.NewFromInt(1) }, InvalidPrice, "outside [0.0001, 0.9999]"},
		{"price off grid", func(b *OrderBook) { b.Asks[0].Price = decimal.RequireFromString("0.55001") }, InvalidPrice, "off the 0.0001 grid"},
		{"unsorted", func(b *OrderBook) {
			b.Bids = []PriceLevel{lv("0.45", "1"), lv("0.47", "1"), lv("0.46", "1")}
		}, InvalidUnsorted, "bids[2].price"},
		{"duplicate price", func(b *OrderBook) { b.Asks = []PriceLevel{lv("0.55", "1"), lv("0.55", "2")} }, InvalidUnsorted, "asks[1]"},
		{"crossed", func(b *OrderBook) { b.Bids[1].Price = decimal.RequireFromString("0.53") }, InvalidCrossed, `best bid "0.53" is not below best ask "0.52"`},
		{"locked", func(b *OrderBook) { b.Bids[1].Price = decimal.RequireFromString("0.52") }, InvalidCrossed, "not below"},
	}
	for _, c := range cases {
		b := goodBook()
		c.edit(&b)
		err := ValidateBook(&b)
		var ve *ValidationError
		if !errors.As(err, &ve) || !errors.Is(err, ErrInvalidData) || ve.Reason != c.reason || !strings.Contains(err.Error(), c.detail) {
			t.Errorf("%s: err = %v, want reason %s with %q", c.name, err, c.reason, c.detail)
			continue
		}
		if len(err.Error()) > 300 || !strings.Contains(err.Error(), "book of token 123") {
			t.Errorf("%s: message %q: too long or does not name the token", c.name, err)
		}
	}
}

func TestValidateMarket(t *testing.T) {
	m := &Market{ConditionID: "0xabc", MinimumTickSize: Number{decimal.RequireFromString("0.001")}, MinimumOrderSize: Number{decimal.NewFromInt(5)}}
	if err := ValidateMarket(m); err != nil {
		t.Fatal(err)
	}
	m.MinimumTickSize = Number{decimal.RequireFromString("0.7")}
	var ve *ValidationError
	if err := ValidateMarket(m); !errors.As(err, &ve) || ve.Reason != InvalidTick || !strings.Contains(err.Error(), "market 0xabc") {
		t.Fatalf("err = %v", err)
	}
}

// FuzzValidateBook: any book of decodable levels is either refused with a
// known reason or obeys every rule.
func FuzzValidateBook(f *testing.F) {
	f.Add("0.01", "5", "0.45", "100", "0.55", "100")
	f.Add("0.7", "1e12", "-1", "-1000", "1.5", "1e300")
	f.Add("0.0001", "0.1", "0.9999", "0", "0.0001", "1000000000")
	f.Fuzz(func(t *testing.T, tick, minSize, bid, bidSize, ask, askSize string) {
		var b OrderBook
		for _, s := range []struct {
			dst *decimal.Decimal
			v   string
		}{{&b.TickSize, tick}, {&b.MinOrderSize, minSize}} {
			d, err := decimal.NewFromString(s.v)
			if err != nil {
				return
			}
			*s.dst = d
		}
		for _, l := range [][2]string{{bid, bidSize}, {ask, askSize}} {
			p, err1 := decimal.NewFromString(l[0])
			s, err2 := decimal.NewFromString(l[1])
			if err1 != nil || err2 != nil {
				return
			}
			if len(b.Bids) == 0 {
				b.Bids = []PriceLevel{{p, s}}
			} else {
				b.Asks = []PriceLevel{{p, s}}
			}
		}
		err := ValidateBook(&b)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("%v is not a *ValidationError", err)
			}
			switch ve.Reason {
			case InvalidTick, InvalidMinSize, InvalidPrice, InvalidSize, InvalidUnsorted, InvalidCrossed:
			default:
				t.Fatalf("unknown reason %q", ve.Reason)
			}
			return
		}
		if !ValidTick(b.TickSize) || !b.MinOrderSize.IsPositive() || b.Bids[0].Price.LessThanOrEqual(decimal.Zero) ||
			b.Asks[0].Price.GreaterThanOrEqual(decimal.NewFromInt(1)) || b.Bids[0].Size.IsNegative() || b.Bids[0].Price.GreaterThanOrEqual(b.Asks[0].Price) {
			t.Fatalf("accepted %+v", b)
		}
	})
}
