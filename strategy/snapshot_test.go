package strategy

import (
	"math"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

func TestTopHelpers(t *testing.T) {
	s := book("0.01", "0.40", "0.44", "", "")
	s.Tokens[Yes].Bids[0].Size = d("30")
	s.Tokens[Yes].Asks[0].Size = d("10")
	top := s.Top(Yes)
	m, _ := top.Mid()
	sp, _ := top.Spread()
	mp, _ := top.Microprice()
	approx(t, "mid", m, 0.42, 1e-12)
	approx(t, "spread", sp, 0.04, 1e-12)
	// (0.40×10 + 0.44×30)/40 = (4 + 13.2)/40 = 0.43: the thin ask side is
	// the one about to go, so the microprice leans toward it.
	approx(t, "microprice", mp, 0.43, 1e-12)
	if _, ok := s.Top(No).Mid(); ok {
		t.Fatal("empty NO book has a mid")
	}
	if (s.Top(Outcome(5)) != Top{}) {
		t.Fatal("invalid outcome has a top")
	}
}

func TestTopExOwn(t *testing.T) {
	s := book("0.01", "0.45", "0.55", "", "")
	s.Tokens[Yes].Bids = append(s.Tokens[Yes].Bids, lv("0.44", "50"))
	s.Tokens[Yes].Bids[0].Size = d("20")
	cases := []struct {
		name     string
		open     []OpenOrder
		bid, bsz float64
	}{
		{"no own orders", nil, 0.45, 20},
		{"part of the level is ours", []OpenOrder{open("a", Yes, exchange.Buy, "0.45", "5")}, 0.45, 15},
		{"the whole level is ours", []OpenOrder{open("a", Yes, exchange.Buy, "0.45", "20")}, 0.44, 50},
		{"our NO order does not count", []OpenOrder{open("a", No, exchange.Buy, "0.45", "20")}, 0.45, 20},
		{"our sell does not count", []OpenOrder{open("a", Yes, exchange.Sell, "0.45", "20")}, 0.45, 20},
	}
	for _, c := range cases {
		s.Open = c.open
		top := s.TopExOwn(Yes)
		if top.Bid != c.bid || math.Abs(top.BidSize-c.bsz) > 1e-9 || top.Ask != 0.55 {
			t.Errorf("%s: %+v", c.name, top)
		}
	}
}

func TestFairValue(t *testing.T) {
	cases := []struct {
		name           string
		yb, ya, nb, na string
		want           float64
		ok             bool
		trades         []TradePrint
	}{
		{"both books agree", "0.48", "0.52", "0.48", "0.52", 0.50, true, nil},
		// YES mid 0.50 spread 0.04 (w 25); NO mid 0.45 → 0.55, spread 0.02 (w 50):
		// (25×0.50 + 50×0.55)/75 = (12.5 + 27.5)/75 = 0.5333…
		{"tighter book weighs more", "0.48", "0.52", "0.44", "0.46", 0.5333333333, true, nil},
		{"YES only", "0.60", "0.64", "", "", 0.62, true, nil},
		{"NO only", "", "", "0.30", "0.34", 0.68, true, nil},
		// YES bid 0.40, NO bid 0.50 → YES ask 0.50: consolidated mid 0.45.
		{"consolidated one-sided books", "0.40", "", "0.50", "", 0.45, true, nil},
		{"last trade", "", "", "", "", 0.30, true, []TradePrint{
			{Outcome: Yes, Price: d("0.9"), Time: t0},
			{Outcome: No, Price: d("0.7"), Time: t0},
		}},
		{"nothing", "", "", "", "", 0, false, nil},
		// Our own YES bid at 0.50 (all of that level) is excluded: the
		// others' book is 0.48/0.52, mid 0.50 (with ours it would be 0.51).
		{"own orders excluded", "0.50", "0.52", "", "", 0.50, true, nil},
		{"clamped", "", "", "", "", 1 - probEps, true, []TradePrint{{Outcome: Yes, Price: d("1"), Time: t0}}},
	}
	for _, c := range cases {
		s := book("0.01", c.yb, c.ya, c.nb, c.na)
		s.Trades = c.trades
		if c.name == "own orders excluded" {
			s.Tokens[Yes].Bids = append(s.Tokens[Yes].Bids, lv("0.48", "10"))
			s.Tokens[Yes].Asks[0].Size = d("10")
			s.Open = []OpenOrder{open("x", Yes, exchange.Buy, "0.50", "100")}
		}
		got, ok := s.FairValue()
		if ok != c.ok {
			t.Errorf("%s: ok %v", c.name, ok)
			continue
		}
		approx(t, c.name, got, c.want, 1e-9)
	}
}

func TestTimeToEndAndNet(t *testing.T) {
	s := book("0.01", "", "", "", "")
	if _, ok := s.TimeToEnd(); ok {
		t.Fatal("no end date reported one")
	}
	s.EndDate = t0.Add(90 * time.Minute)
	if tau, ok := s.TimeToEnd(); !ok || tau != 90*time.Minute {
		t.Fatalf("tau %s", tau)
	}
	s.EndDate = t0.Add(-time.Minute)
	if tau, _ := s.TimeToEnd(); tau != 0 {
		t.Fatalf("past end date: %s", tau)
	}
	s.Position = [2]decimal.Decimal{d("30"), d("12.5")}
	approx(t, "net", s.NetYes(), 17.5, 0)
}

func TestLogitSigmoid(t *testing.T) {
	for _, p := range []float64{0.001, 0.1, 0.25, 0.5, 0.6, 0.99} {
		approx(t, "round trip", Sigmoid(Logit(p)), p, 1e-12)
	}
	approx(t, "logit(0.6)", Logit(0.6), math.Log(1.5), 1e-15)
	approx(t, "logit(0)", Logit(0), math.Log(probEps/(1-probEps)), 1e-9)
	if Outcome(0).String() != "YES" || No.String() != "NO" || Outcome(7).String() != "outcome?" || Yes.Other() != No {
		t.Fatal("outcome names")
	}
}
