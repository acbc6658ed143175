package exchange

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestSystemClock(t *testing.T) {
	var c Clock = SystemClock{}
	if d := time.Since(c.Now()); d < 0 || d > time.Minute {
		t.Errorf("Now is off by %v", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := c.Sleep(ctx, 0); err != nil {
		t.Errorf("Sleep(0) = %v", err)
	}
	if err := c.Sleep(ctx, time.Microsecond); err != nil {
		t.Errorf("Sleep(1µs) = %v", err)
	}
	cancel()
	if err := c.Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep on a cancelled ctx = %v", err)
	}
}

func TestSideAndNormalize(t *testing.T) {
	if Buy.Opposite() != Sell || Sell.Opposite() != Buy || !Buy.Valid() || Side("buy").Valid() {
		t.Error("Side")
	}
	d := decimal.RequireFromString
	b := OrderBook{
		Bids: []PriceLevel{{d("0.40"), d("1")}, {d("0.45"), d("2")}, {d("0.41"), d("3")}},
		Asks: []PriceLevel{{d("0.60"), d("1")}, {d("0.55"), d("2")}, {d("0.58"), d("3")}},
	}
	b.Normalize()
	if !b.Bids[0].Price.Equal(d("0.45")) || !b.Bids[2].Price.Equal(d("0.40")) || !b.Asks[0].Price.Equal(d("0.55")) || !b.Asks[2].Price.Equal(d("0.60")) {
		t.Errorf("Normalize: %+v", b)
	}
	if (Cap{80, 10 * time.Second}).String() != "80/10s" || bucketID(99).String() != "bucket(99)" {
		t.Error("String methods")
	}
}
