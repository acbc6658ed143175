package backtest

import (
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy"
	"github.com/mmbot/mmbot/strategy/loop"
)

func TestScanMarkets(t *testing.T) {
	end := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	evs := []Event{
		MetaEvent(&Meta{Stamp: Stamp{Exchange: ms(0)}, Market: "0xb", EndDate: end, RewardMaxSpread: dec("3.5"), RewardMinSize: dec("50")}),
		BookEvent(&Book{Stamp: Stamp{Exchange: ms(1)}, TokenID: "b-yes", Market: "0xb", TickSize: dec("0.01"), MinOrderSize: dec("5")}),
		TradeEvent(&Trade{Stamp: Stamp{Exchange: ms(2)}, TokenID: "b-no", Market: "0xb", Price: dec("0.5"), Size: dec("1")}),
		BookEvent(&Book{Stamp: Stamp{Exchange: ms(3)}, TokenID: "b-no", TickSize: dec("0.001")}),    // later tick: the first one wins
		MetaEvent(&Meta{Stamp: Stamp{Exchange: ms(3)}, Market: "0xb", EndDate: end.Add(time.Hour)}), // later end date: ignored
		BookEvent(&Book{Stamp: Stamp{Exchange: ms(4)}, TokenID: "a1", Market: "0xa", TickSize: dec("0.01")}),
		BookEvent(&Book{Stamp: Stamp{Exchange: ms(5)}, TokenID: "a2", Market: "0xa"}),
		BookEvent(&Book{Stamp: Stamp{Exchange: ms(6)}, TokenID: "a3", Market: "0xa"}),
		BookEvent(&Book{Stamp: Stamp{Exchange: ms(7)}, TokenID: "lonely"}),
		BookEvent(&Book{Stamp: Stamp{Exchange: ms(8)}, TokenID: "c1", Market: "0xc"}),
		BookEvent(&Book{Stamp: Stamp{Exchange: ms(9)}, TokenID: "c2", Market: "0xc"}),
		BookEvent(&Book{Stamp: Stamp{Exchange: ms(10)}, TokenID: "late", Market: ""}),
		TradeEvent(&Trade{Stamp: Stamp{Exchange: ms(11)}, TokenID: "late", Market: "0xd", Price: dec("0.5"), Size: dec("1")}),
	}
	res, err := ScanMarkets(&SliceSource{Events: evs})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Markets) != 1 {
		t.Fatalf("markets %+v, want only 0xb", res.Markets)
	}
	m := res.Markets[0]
	want := strategy.Market{ConditionID: "0xb", TokenIDs: [2]string{"b-yes", "b-no"}, Tick: dec("0.01"), MinSize: dec("5"), EndDate: end,
		Rewards: strategy.RewardTerms{MaxSpread: dec("3.5"), MinSize: dec("50")}}
	if m.ConditionID != want.ConditionID || m.TokenIDs != want.TokenIDs || !m.Tick.Equal(want.Tick) || !m.MinSize.Equal(want.MinSize) ||
		!m.EndDate.Equal(end) || !m.Rewards.MaxSpread.Equal(want.Rewards.MaxSpread) || !m.Rewards.MinSize.Equal(want.Rewards.MinSize) {
		t.Errorf("market %+v, want %+v", m, want)
	}
	notes := strings.Join(res.Notes, "\n")
	for _, w := range []string{"market 0xa has 3 tokens", "market 0xc: no tick size", "market 0xd has 1 tokens", "token lonely"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
	if strings.Contains(notes, "token late") {
		t.Errorf("a token placed by a later event is reported as orphan:\n%s", notes)
	}
	if res.Events != int64(len(evs)) || !res.Start.Equal(ms(0)) || !res.End.Equal(ms(11)) {
		t.Errorf("events %d, %v..%v", res.Events, res.Start, res.End)
	}
}

func TestSignerDeterministic(t *testing.T) {
	m := testMarket()
	sign := func() []string {
		var s Signer
		var out []string
		for _, o := range []strategy.Order{
			{TokenID: tokY, Side: exchange.Buy, Price: dec("0.49"), Size: dec("10")},
			{TokenID: tokN, Side: exchange.Sell, Price: dec("0.51"), Size: dec("12.5")},
		} {
			it, hash, err := s.SignOrder(&m, &o, exchange.GTC)
			if err != nil {
				t.Fatal(err)
			}
			if OrderHash(&it.Order) != hash {
				t.Fatalf("hash %s is not OrderHash of the item", hash)
			}
			p, sz, err := orderAmounts(&it.Order)
			if err != nil || p.Decimal().String() != o.Price.String() || !sz.Decimal().Equal(o.Size) {
				t.Fatalf("amounts %s/%s decode to %s × %s (%v), want %s × %s", it.Order.MakerAmount, it.Order.TakerAmount, p, sz, err, o.Price, o.Size)
			}
			out = append(out, hash)
		}
		return out
	}
	a, b := sign(), sign()
	if a[0] != b[0] || a[1] != b[1] || a[0] == a[1] {
		t.Errorf("hashes %v and %v: want equal runs, distinct orders", a, b)
	}
	var s Signer
	if _, _, err := s.SignOrder(&m, &strategy.Order{TokenID: tokY, Side: exchange.Buy, Price: dec("0.4999999"), Size: dec("1")}, exchange.GTC); err == nil {
		t.Error("an amount finer than the base unit was signed")
	}
}

func TestMemJournal(t *testing.T) {
	j := NewMemJournal()
	in := []loop.Intent{{Hash: "h1", TokenID: tokY}, {Hash: "h2", TokenID: tokY}}
	if err := j.RecordIntents(in, t0); err != nil {
		t.Fatal(err)
	}
	if err := j.RecordIntents(in[:1], t0); err == nil {
		t.Error("an intent recorded twice was accepted")
	}
	if err := j.Apply(&loop.Batch{Sent: []string{"h3"}}); err == nil {
		t.Error("an order sent without an intent was accepted")
	}
	err := j.Apply(&loop.Batch{Sent: []string{"h1", "h2"},
		Fills:   []loop.FillRecord{{OrderHash: "h1", TokenID: tokY, Side: exchange.Buy, Size: dec("4")}, {OrderHash: "h2", TokenID: tokY, Side: exchange.Sell, Size: dec("1.5")}},
		Updates: []loop.Update{{Hash: "h1", State: loop.JFilled, SizeMatched: dec("4")}, {Hash: "h2", State: loop.JLive}}})
	if err != nil {
		t.Fatal(err)
	}
	open, _ := j.NonFinal()
	if len(open) != 1 || open[0].Hash != "h2" || open[0].State != loop.JLive || j.Open() != 1 {
		t.Errorf("non-final %+v, want h2 live (h1 is final and forgotten)", open)
	}
	pos, _ := j.Positions()
	if !pos[tokY].Equal(decimal.RequireFromString("2.5")) {
		t.Errorf("position %s, want 2.5", pos[tokY])
	}
	if err := j.Apply(&loop.Batch{Updates: []loop.Update{{Hash: "h1", State: loop.JCanceled}}}); err == nil {
		t.Error("an update of a final order was accepted")
	}
}
