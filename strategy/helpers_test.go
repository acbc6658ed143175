package strategy

import (
	"slices"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func df(f float64) decimal.Decimal { return decimal.NewFromFloat(f) }

func lv(price, size string) exchange.PriceLevel {
	return exchange.PriceLevel{Price: d(price), Size: d(size)}
}

// book builds a snapshot of two books; "" leaves a side empty.
func book(tick, yesBid, yesAsk, noBid, noAsk string) *Snapshot {
	s := &Snapshot{
		ConditionID: "0xcond",
		Tick:        d(tick),
		MinSize:     d("5"),
		Now:         t0,
	}
	s.Tokens[Yes].TokenID, s.Tokens[No].TokenID = "yes-token", "no-token"
	add := func(dst *[]exchange.PriceLevel, p string) {
		if p != "" {
			*dst = append(*dst, lv(p, "100"))
		}
	}
	add(&s.Tokens[Yes].Bids, yesBid)
	add(&s.Tokens[Yes].Asks, yesAsk)
	add(&s.Tokens[No].Bids, noBid)
	add(&s.Tokens[No].Asks, noAsk)
	return s
}

func open(id string, o Outcome, side exchange.Side, price, size string) OpenOrder {
	return OpenOrder{ID: id, Outcome: o, Side: side, Price: d(price), Size: d(size)}
}

// withOwn returns a copy of s whose books also hold our open orders open,
// as the exchange would show them, and whose Open is open.
func withOwn(s *Snapshot, open []OpenOrder) *Snapshot {
	c := *s
	c.Open = slices.Clone(open)
	for o := range c.Tokens {
		c.Tokens[o].Bids = slices.Clone(s.Tokens[o].Bids)
		c.Tokens[o].Asks = slices.Clone(s.Tokens[o].Asks)
	}
	for _, oo := range open {
		if !oo.Outcome.Valid() {
			continue
		}
		tb := &c.Tokens[oo.Outcome]
		levels, better := &tb.Bids, func(a, b decimal.Decimal) bool { return a.GreaterThan(b) }
		if oo.Side == exchange.Sell {
			levels, better = &tb.Asks, func(a, b decimal.Decimal) bool { return a.LessThan(b) }
		}
		i := 0
		for i < len(*levels) && better((*levels)[i].Price, oo.Price) {
			i++
		}
		if i < len(*levels) && (*levels)[i].Price.Equal(oo.Price) {
			(*levels)[i].Size = (*levels)[i].Size.Add(oo.Size)
		} else {
			*levels = slices.Insert(*levels, i, exchange.PriceLevel{Price: oo.Price, Size: oo.Size})
		}
	}
	return &c
}

// finalSet is what rests after a plan: kept orders and the new places.
func finalSet(p Plan) []OpenOrder {
	out := slices.Clone(p.Kept)
	for i, o := range p.Places {
		out = append(out, OpenOrder{ID: "new-" + string(rune('a'+i%26)) + o.Price.String(), Outcome: o.Outcome, Side: o.Side, Price: o.Price, Size: o.Size})
	}
	return out
}

func approx(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if diff := got - want; diff > tol || diff < -tol {
		t.Errorf("%s = %.10g, want %.10g (±%g)", name, got, want, tol)
	}
}
