package strategy

import (
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/risk"
	"github.com/shopspring/decimal"
)

func TestQuoterPass(t *testing.T) {
	model, err := NewBands(BandsParams{Offsets: []float64{0.01, 0.03}, Sizes: []float64{10, 20}})
	if err != nil {
		t.Fatal(err)
	}
	chk, err := risk.NewChecker(risk.Limits{MaxOrderSize: d("15"), FillCooldown: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	q := Quoter{Model: model, Tolerance: Tolerance{PriceTicks: 1, SizeFrac: 0.1}, Checker: chk}
	others := book("0.01", "0.48", "0.52", "0.48", "0.52")
	// A stale YES bid at 0.52 would cross the new NO bid at 0.49; it is
	// cancelled by the plan, so the risk checks must not count it.
	s := withOwn(others, []OpenOrder{open("stale", Yes, exchange.Buy, "0.51", "10"), open("keep", No, exchange.Buy, "0.49", "10")})
	s.LastFill[Yes][0] = t0.Add(-30 * time.Second) // our YES bid filled 30 s ago
	res, err := q.Pass(s, nil, Unlimited(), risk.Totals{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.HasFair || res.Fair != 0.5 || len(res.Desired) != 4 {
		t.Fatalf("fair %v desired %+v", res.Fair, res.Desired)
	}
	if ids(res.Cancels) != "stale" || ids(res.Kept) != "keep" {
		t.Fatalf("cancels %s kept %s", ids(res.Cancels), ids(res.Kept))
	}
	// Level 0: YES 0.49 waits for the cool-down, NO kept. Level 1: YES and
	// NO 0.47, cut from 20 to the size limit of 15 before planning; the
	// YES one waits for the cool-down too. Nothing is refused.
	if got := placesString(Plan{Places: res.Places}); got != "BUY NO 15@0.47" || len(res.Rejected) != 0 {
		t.Fatalf("places %s rejected %+v", got, res.Rejected)
	}
	if res.Limited[risk.ReasonOrderSize] != 2 || res.Limited[risk.ReasonCooldown] != 2 || res.Limit() != risk.ReasonOrderSize {
		t.Fatalf("limited %v", res.Limited)
	}

	// After the cool-down everything goes, level 1 at the size limit.
	s.Now = t0.Add(time.Minute)
	res, err = q.Pass(s, nil, Unlimited(), risk.Totals{})
	if err != nil {
		t.Fatal(err)
	}
	if got := placesString(Plan{Places: res.Places}); got != "BUY YES 10@0.49, BUY YES 15@0.47, BUY NO 15@0.47" || len(res.Rejected) != 0 {
		t.Fatalf("places %q rejected %d", got, len(res.Rejected))
	}

	// Without a checker every planned order goes.
	q.Checker = nil
	res, _ = q.Pass(s, nil, Unlimited(), risk.Totals{})
	if len(res.Places) != 3 {
		t.Fatalf("unchecked places: %s", placesString(Plan{Places: res.Places}))
	}
	// A bad snapshot is an error.
	s.Tick = decimal.Zero
	if _, err := q.Pass(s, nil, Unlimited(), risk.Totals{}); err == nil {
		t.Fatal("no error on a zero tick")
	}
}
