package exchange

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange/clocktest"
	"github.com/shopspring/decimal"
)

// BenchmarkLimiterAdmit measures one admission of a POST /orders batch
// (three buckets) when tokens are there.
func BenchmarkLimiterAdmit(b *testing.B) {
	clk := clocktest.New(t0)
	l := DefaultLimits()
	l.PostOrderBurst.Requests, l.PostOrderSustained.Requests, l.CLOBGeneral.Requests = 1<<40, 1<<40, 1<<40
	lm, err := newLimiter(l, clk.Now(), nil)
	if err != nil {
		b.Fatal(err)
	}
	costs := endpointSpecs[epPlaceOrders].costs(15)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := lm.wait(ctx, clk, "orders", costs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeBooks decodes a POST /books answer of 20 books with 20
// levels a side.
func BenchmarkDecodeBooks(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("[")
	for i := range 20 {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"market":"0xabc","asset_id":"%d","timestamp":"1718000000123","hash":"0xh","bids":[`, i)
		for j := range 20 {
			if j > 0 {
				sb.WriteString(",")
			}
			fmt.Fprintf(&sb, `{"price":"0.%02d","size":"%d.5"}`, 49-j, 100+j)
		}
		sb.WriteString(`],"asks":[`)
		for j := range 20 {
			if j > 0 {
				sb.WriteString(",")
			}
			fmt.Fprintf(&sb, `{"price":"0.%02d","size":"%d"}`, 51+j, 100+j)
		}
		sb.WriteString(`],"min_order_size":"5","tick_size":"0.01","neg_risk":false,"last_trade_price":"0.50"}`)
	}
	sb.WriteString("]")
	body := []byte(sb.String())
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() { // as Client.Books decodes
		if _, err := decodeBooks(body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBudget measures the planner's per-cycle budget read.
func BenchmarkBudget(b *testing.B) {
	clk := clocktest.New(t0)
	lm, err := newLimiter(DefaultLimits(), clk.Now(), nil)
	if err != nil {
		b.Fatal(err)
	}
	now := t0.Add(time.Second)
	b.ReportAllocs()
	for b.Loop() {
		_ = lm.budget(now)
	}
}

// BenchmarkFixedFromDecimal converts a price exactly (the fast path: no
// allocation).
func BenchmarkFixedFromDecimal(b *testing.B) {
	d := decimal.RequireFromString("0.4875")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FixedFromDecimal(d); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFixedRound converts a value with more than six decimals, rounding
// up, as the risk checks do.
func BenchmarkFixedRound(b *testing.B) {
	d := decimal.RequireFromString("12.3456789")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FixedRound(d, RoundCeil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFixedMul multiplies a price by a size, rounding up.
func BenchmarkFixedMul(b *testing.B) {
	p, s := Fixed(487_500), Fixed(21_040_000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Mul(s, RoundCeil); err != nil {
			b.Fatal(err)
		}
	}
}
