package state

import (
	"errors"
	"fmt"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
)

type posStep struct {
	side             exchange.Side
	size, price, fee string
	short            bool
	// the position after the step, or wantErr
	shares, cost, pnl string
	wantErr           error
}

var positionCases = []struct {
	name  string
	steps []posStep
}{
	{"buy buy partial-sell sell-through-zero-forbidden", []posStep{
		{side: exchange.Buy, size: "10", price: "0.40", shares: "10", cost: "4", pnl: "0"},
		{side: exchange.Buy, size: "10", price: "0.50", shares: "20", cost: "9", pnl: "0"},
		{side: exchange.Sell, size: "5", price: "0.60", shares: "15", cost: "6.75", pnl: "0.75"},
		{side: exchange.Sell, size: "20", price: "0.55", wantErr: ErrOversell, shares: "15", cost: "6.75", pnl: "0.75"},
		{side: exchange.Sell, size: "15", price: "0.55", shares: "0", cost: "0", pnl: "2.25"},
	}},
	{"sell through zero marked short, then cover", []posStep{
		{side: exchange.Buy, size: "10", price: "0.40", shares: "10", cost: "4", pnl: "0"},
		{side: exchange.Buy, size: "10", price: "0.50", shares: "20", cost: "9", pnl: "0"},
		{side: exchange.Sell, size: "5", price: "0.60", shares: "15", cost: "6.75", pnl: "0.75"},
		{side: exchange.Sell, size: "20", price: "0.55", short: true, shares: "-5", cost: "-2.75", pnl: "2.25"},
		{side: exchange.Sell, size: "1", price: "0.50", wantErr: ErrOversell, shares: "-5", cost: "-2.75", pnl: "2.25"},
		{side: exchange.Buy, size: "5", price: "0.50", shares: "0", cost: "0", pnl: "2.5"},
	}},
	{"buy through zero from a short", []posStep{
		{side: exchange.Sell, size: "4", price: "0.70", short: true, shares: "-4", cost: "-2.8", pnl: "0"},
		{side: exchange.Buy, size: "6", price: "0.60", shares: "2", cost: "1.2", pnl: "0.4"},
	}},
	{"sell when flat is oversell", []posStep{
		{side: exchange.Sell, size: "1", price: "0.50", wantErr: ErrOversell, shares: "0", cost: "0", pnl: "0"},
	}},
	{"rounded release never leaks", []posStep{
		{side: exchange.Buy, size: "7", price: "0.10", shares: "7", cost: "0.7", pnl: "0"},
		{side: exchange.Buy, size: "2", price: "0.11", shares: "9", cost: "0.92", pnl: "0"},
		// 0.92 / 9 = 0.10222…, released 0.102222
		{side: exchange.Sell, size: "1", price: "0.20", shares: "8", cost: "0.817778", pnl: "0.097778"},
		{side: exchange.Sell, size: "8", price: "0.20", shares: "0", cost: "0", pnl: "0.88"},
	}},
	{"half rounds away from zero", []posStep{
		{side: exchange.Buy, size: "2", price: "0.000001", shares: "2", cost: "0.000002", pnl: "0"},
		{side: exchange.Buy, size: "2", price: "0.000002", shares: "4", cost: "0.000006", pnl: "0"},
		// 0.000006 × 1 / 4 = 0.0000015 → 0.000002
		{side: exchange.Sell, size: "1", price: "0.000001", shares: "3", cost: "0.000004", pnl: "-0.000001"},
	}},
	{"fees and rebates hit realized PnL", []posStep{
		{side: exchange.Buy, size: "10", price: "0.50", fee: "0.02", shares: "10", cost: "5", pnl: "-0.02"},
		{side: exchange.Sell, size: "10", price: "0.55", fee: "-0.01", shares: "0", cost: "0", pnl: "0.49"},
	}},
}

func TestPositionApply(t *testing.T) {
	for _, c := range positionCases {
		t.Run(c.name, func(t *testing.T) {
			p := Position{}
			cash := decimal.Zero
			for i, st := range c.steps {
				f := stepFill(i, st)
				err := p.Apply(&f)
				if !errors.Is(err, st.wantErr) {
					t.Fatalf("step %d: err = %v, want %v", i, err, st.wantErr)
				}
				if err == nil {
					cash = cash.Add(cashFlow(&f))
				}
				if !p.Shares.Equal(d(st.shares)) || !p.Cost.Equal(d(st.cost)) || !p.RealizedPnL.Equal(d(st.pnl)) {
					t.Fatalf("step %d: shares %s cost %s pnl %s; want %s %s %s", i, p.Shares, p.Cost, p.RealizedPnL, st.shares, st.cost, st.pnl)
				}
				// Accounting identity: realized = cash flow + open cost basis.
				if !p.RealizedPnL.Equal(cash.Add(p.Cost)) {
					t.Fatalf("step %d: realized %s != cash %s + cost %s", i, p.RealizedPnL, cash, p.Cost)
				}
			}
		})
	}
}

func TestPositionAvgPriceAndToken(t *testing.T) {
	p := Position{}
	if !p.AvgPrice().IsZero() {
		t.Fatalf("flat AvgPrice = %s", p.AvgPrice())
	}
	for i, st := range positionCases[0].steps[:2] {
		f := stepFill(i, st)
		if err := p.Apply(&f); err != nil {
			t.Fatal(err)
		}
	}
	if !p.AvgPrice().Equal(d("0.45")) || p.Fills != 2 || p.TokenID != "tok" || p.ConditionID != "0xcond" {
		t.Fatalf("position %+v avg %s", p, p.AvgPrice())
	}
	other := stepFill(9, posStep{side: exchange.Buy, size: "1", price: "0.5"})
	other.TokenID = "other"
	before := p
	if err := p.Apply(&other); !errors.Is(err, ErrInvalid) {
		t.Fatalf("fill of another token: %v", err)
	}
	if !positionsEqual(&p, &before) {
		t.Fatalf("failed Apply changed the position")
	}
}

func stepFill(i int, st posStep) Fill {
	fee := st.fee
	if fee == "" {
		fee = "0"
	}
	return Fill{
		ID: fmt.Sprint("f", i), OrderHash: "h", ConditionID: "0xcond", TokenID: "tok",
		Side: st.side, Size: d(st.size), Price: d(st.price), Fee: d(fee), Short: st.short,
		Time: t0,
	}
}

// cashFlow is the collateral a fill moves: + for a sale, − for a purchase,
// − the fee.
func cashFlow(f *Fill) decimal.Decimal {
	v := f.Price.Mul(f.Size)
	if f.Side == exchange.Buy {
		v = v.Neg()
	}
	return v.Sub(f.Fee)
}

// FuzzPositionApply drives a position with arbitrary fills and checks the
// accounting identity (realized = cash flow + open cost), that a failed fill
// changes nothing, that only Short fills go below zero, and that a flat
// position carries no cost.
func FuzzPositionApply(f *testing.F) {
	for _, c := range positionCases {
		var seed []byte
		for _, st := range c.steps {
			b0 := byte(0)
			if st.side == exchange.Sell {
				b0 |= 1
			}
			if st.short {
				b0 |= 2
			}
			size := d(st.size).Mul(d("100")).IntPart()
			price := d(st.price).Mul(d("1000")).IntPart()
			seed = append(seed, b0, byte(size), byte(size>>8), byte(price%256), byte(price/256))
		}
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := Position{}
		cash := decimal.Zero
		for i := 0; i+5 <= len(data); i += 5 {
			b := data[i : i+5]
			side := exchange.Buy
			if b[0]&1 == 1 {
				side = exchange.Sell
			}
			size := decimal.New(int64(b[1])|int64(b[2])<<8, -2)
			price := decimal.New(int64(b[3])|int64(b[4])<<8, -3)
			fee := decimal.New(int64(b[0]>>2), -4)
			if !size.IsPositive() || !price.IsPositive() {
				continue
			}
			fl := Fill{ID: fmt.Sprint(i), TokenID: "tok", Side: side, Size: size, Price: price, Fee: fee, Short: b[0]&2 != 0, Time: t0}
			before := p
			if err := p.Apply(&fl); err != nil {
				if !errors.Is(err, ErrOversell) || fl.Short {
					t.Fatalf("unexpected error %v", err)
				}
				if !positionsEqual(&p, &before) {
					t.Fatalf("failed Apply changed the position")
				}
				continue
			}
			cash = cash.Add(cashFlow(&fl))
			if p.Shares.IsNegative() && !fl.Short && !before.Shares.IsNegative() {
				t.Fatalf("went short without a Short fill: %+v", p)
			}
			if !p.RealizedPnL.Equal(cash.Add(p.Cost)) {
				t.Fatalf("realized %s != cash %s + cost %s", p.RealizedPnL, cash, p.Cost)
			}
			if p.Shares.IsZero() && !p.Cost.IsZero() {
				t.Fatalf("flat position with cost %s", p.Cost)
			}
			if p.Shares.Sign()*p.Cost.Sign() < 0 {
				t.Fatalf("shares %s and cost %s have opposite signs", p.Shares, p.Cost)
			}
		}
	})
}
