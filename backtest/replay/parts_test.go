package replay

import (
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/backtest/internal/synthetic"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy"
	"github.com/mmbot/mmbot/strategy/loop"
)

func TestScanMarkets(t *testing.T) {
	end := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	evs := []recording.Event{
		recording.MetaEvent(&recording.Meta{Stamp: recording.Stamp{Exchange: fixture.Ms(0)}, Market: "0xb", EndDate: end, RewardMaxSpread: fixture.Dec("3.5"), RewardMinSize: fixture.Dec("50")}),
		recording.BookEvent(&recording.Book{Stamp: recording.Stamp{Exchange: fixture.Ms(1)}, TokenID: "b-yes", Market: "0xb", TickSize: fixture.Dec("0.01"), MinOrderSize: fixture.Dec("5")}),
		recording.TradeEvent(&recording.Trade{Stamp: recording.Stamp{Exchange: fixture.Ms(2)}, TokenID: "b-no", Market: "0xb", Price: fixture.Dec("0.5"), Size: fixture.Dec("1")}),
		recording.BookEvent(&recording.Book{Stamp: recording.Stamp{Exchange: fixture.Ms(3)}, TokenID: "b-no", TickSize: fixture.Dec("0.001")}), // later tick: the first one wins
		recording.MetaEvent(&recording.Meta{Stamp: recording.Stamp{Exchange: fixture.Ms(3)}, Market: "0xb", EndDate: end.Add(time.Hour)}),      // later end date: ignored
		recording.BookEvent(&recording.Book{Stamp: recording.Stamp{Exchange: fixture.Ms(4)}, TokenID: "a1", Market: "0xa", TickSize: fixture.Dec("0.01")}),
		recording.BookEvent(&recording.Book{Stamp: recording.Stamp{Exchange: fixture.Ms(5)}, TokenID: "a2", Market: "0xa"}),
		recording.BookEvent(&recording.Book{Stamp: recording.Stamp{Exchange: fixture.Ms(6)}, TokenID: "a3", Market: "0xa"}),
		recording.BookEvent(&recording.Book{Stamp: recording.Stamp{Exchange: fixture.Ms(7)}, TokenID: "lonely"}),
		recording.BookEvent(&recording.Book{Stamp: recording.Stamp{Exchange: fixture.Ms(8)}, TokenID: "c1", Market: "0xc"}),
		recording.BookEvent(&recording.Book{Stamp: recording.Stamp{Exchange: fixture.Ms(9)}, TokenID: "c2", Market: "0xc"}),
		recording.BookEvent(&recording.Book{Stamp: recording.Stamp{Exchange: fixture.Ms(10)}, TokenID: "late", Market: ""}),
		recording.TradeEvent(&recording.Trade{Stamp: recording.Stamp{Exchange: fixture.Ms(11)}, TokenID: "late", Market: "0xd", Price: fixture.Dec("0.5"), Size: fixture.Dec("1")}),
	}
	res, err := ScanMarkets(&SliceSource{Events: evs})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Markets) != 1 {
		t.Fatalf("markets %+v, want only 0xb", res.Markets)
	}
	m := res.Markets[0]
	want := strategy.Market{ConditionID: "0xb", TokenIDs: [2]string{"b-yes", "b-no"}, Tick: fixture.Dec("0.01"), MinSize: fixture.Dec("5"), EndDate: end,
		Rewards: strategy.RewardTerms{MaxSpread: fixture.Dec("3.5"), MinSize: fixture.Dec("50")}}
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
	if res.Events != int64(len(evs)) || !res.Start.Equal(fixture.Ms(0)) || !res.End.Equal(fixture.Ms(11)) {
		t.Errorf("events %d, %v..%v", res.Events, res.Start, res.End)
	}
}

func TestSignerDeterministic(t *testing.T) {
	m := synthetic.Market()
	sign := func() []string {
		var s Signer
		var out []string
		for _, o := range []strategy.Order{
			{TokenID: synthetic.TokY, Side: exchange.Buy, Price: fixture.Dec("0.49"), Size: fixture.Dec("10")},
			{TokenID: synthetic.TokN, Side: exchange.Sell, Price: fixture.Dec("0.51"), Size: fixture.Dec("12.5")},
		} {
			it, hash, err := s.SignOrder(&m, &o, exchange.GTC)
			if err != nil {
				t.Fatal(err)
			}
			if OrderHash(&it.Order) != hash {
				t.Fatalf("hash %s is not OrderHash of the item", hash)
			}
			p, sz, err := fillmodel.OrderAmounts(&it.Order)
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
	if _, _, err := s.SignOrder(&m, &strategy.Order{TokenID: synthetic.TokY, Side: exchange.Buy, Price: fixture.Dec("0.4999999"), Size: fixture.Dec("1")}, exchange.GTC); err == nil {
		t.Error("an amount finer than the base unit was signed")
	}
}

func TestMemJournal(t *testing.T) {
	j := NewMemJournal()
	in := []loop.Intent{{Hash: "h1", TokenID: synthetic.TokY}, {Hash: "h2", TokenID: synthetic.TokY}}
	if err := j.RecordIntents(in, fixture.T0); err != nil {
		t.Fatal(err)
	}
	if err := j.RecordIntents(in[:1], fixture.T0); err == nil {
		t.Error("an intent recorded twice was accepted")
	}
	if err := j.Apply(&loop.Batch{Sent: []string{"h3"}}); err == nil {
		t.Error("an order sent without an intent was accepted")
	}
	err := j.Apply(&loop.Batch{Sent: []string{"h1", "h2"},
		Fills:   []loop.FillRecord{{OrderHash: "h1", TokenID: synthetic.TokY, Side: exchange.Buy, Size: fixture.Dec("4")}, {OrderHash: "h2", TokenID: synthetic.TokY, Side: exchange.Sell, Size: fixture.Dec("1.5")}},
		Updates: []loop.Update{{Hash: "h1", State: loop.JFilled, SizeMatched: fixture.Dec("4")}, {Hash: "h2", State: loop.JLive}}})
	if err != nil {
		t.Fatal(err)
	}
	open, _ := j.NonFinal()
	if len(open) != 1 || open[0].Hash != "h2" || open[0].State != loop.JLive || j.Open() != 1 {
		t.Errorf("non-final %+v, want h2 live (h1 is final and forgotten)", open)
	}
	pos, _ := j.Positions()
	if !pos[synthetic.TokY].Equal(decimal.RequireFromString("2.5")) {
		t.Errorf("position %s, want 2.5", pos[synthetic.TokY])
	}
	if err := j.Apply(&loop.Batch{Updates: []loop.Update{{Hash: "h1", State: loop.JCanceled}}}); err == nil {
		t.Error("an update of a final order was accepted")
	}
}

// A binary market whose NO token never has a book is kept, counted and
// noted: the strategy cannot quote it.
func TestScanMarketsHalfMarket(t *testing.T) {
	evs := []recording.Event{
		recording.TradeEvent(&recording.Trade{Stamp: recording.Stamp{Exchange: fixture.Ms(0)}, TokenID: "h-yes", Market: "0xh", Price: fixture.Dec("0.5"), Size: fixture.Dec("1")}),
		recording.TradeEvent(&recording.Trade{Stamp: recording.Stamp{Exchange: fixture.Ms(1)}, TokenID: "h-no", Market: "0xh", Price: fixture.Dec("0.5"), Size: fixture.Dec("1")}),
		recording.BookEvent(&recording.Book{Stamp: recording.Stamp{Exchange: fixture.Ms(2)}, TokenID: "h-yes", Market: "0xh", TickSize: fixture.Dec("0.01")}),
		recording.BookEvent(&recording.Book{Stamp: recording.Stamp{Exchange: fixture.Ms(3)}, TokenID: "h-yes", Market: "0xh"}),
		recording.BookEvent(&recording.Book{Stamp: recording.Stamp{Exchange: fixture.Ms(4)}, TokenID: "f-yes", Market: "0xf", TickSize: fixture.Dec("0.01")}),
		recording.BookEvent(&recording.Book{Stamp: recording.Stamp{Exchange: fixture.Ms(5)}, TokenID: "f-no", Market: "0xf"}),
	}
	res, err := ScanMarkets(&SliceSource{Events: evs})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Markets) != 2 || res.Books["h-yes"] != 2 || res.Books["h-no"] != 0 || res.Books["f-no"] != 1 {
		t.Fatalf("markets %+v, books %v", res.Markets, res.Books)
	}
	half := res.HalfMarkets(res.Markets)
	if len(half) != 1 || half[0].ConditionID != "0xh" {
		t.Errorf("half markets %+v, want 0xh", half)
	}
	if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, "market 0xh has 2 books of its YES token and 0 of its NO token") {
		t.Errorf("notes:\n%s", notes)
	}
}

// A recording with no usable market: the error lists every market left out
// with its reason (it used to say only that none had a tick size); an id
// that names a market left out gets that market's reason.
func TestScanPickSaysWhy(t *testing.T) {
	evs := []recording.Event{
		recording.BookEvent(&recording.Book{Stamp: recording.Stamp{Exchange: fixture.Ms(1)}, TokenID: "a1", Market: "0xa", TickSize: fixture.Dec("0.01")}),
		recording.BookEvent(&recording.Book{Stamp: recording.Stamp{Exchange: fixture.Ms(2)}, TokenID: "a2", Market: "0xa"}),
		recording.BookEvent(&recording.Book{Stamp: recording.Stamp{Exchange: fixture.Ms(3)}, TokenID: "a3", Market: "0xa"}),
		recording.BookEvent(&recording.Book{Stamp: recording.Stamp{Exchange: fixture.Ms(4)}, TokenID: "c1", Market: "0xc"}),
		recording.BookEvent(&recording.Book{Stamp: recording.Stamp{Exchange: fixture.Ms(5)}, TokenID: "c2", Market: "0xc"}),
		recording.BookEvent(&recording.Book{Stamp: recording.Stamp{Exchange: fixture.Ms(6)}, TokenID: "d1", Market: "0xd", TickSize: fixture.Dec("0.01")}),
	}
	scan, err := ScanMarkets(&SliceSource{Events: evs})
	if err != nil {
		t.Fatal(err)
	}
	_, err = scan.Pick(nil)
	if err == nil {
		t.Fatal("no error without a usable market")
	}
	for _, w := range []string{"market 0xa has 3 tokens", "market 0xc: no tick size", "market 0xd has 1 tokens"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q: %v", w, err)
		}
	}
	evs = append(evs,
		recording.BookEvent(&recording.Book{Stamp: recording.Stamp{Exchange: fixture.Ms(7)}, TokenID: "b1", Market: "0xb", TickSize: fixture.Dec("0.01")}),
		recording.BookEvent(&recording.Book{Stamp: recording.Stamp{Exchange: fixture.Ms(8)}, TokenID: "b2", Market: "0xb"}))
	if scan, err = ScanMarkets(&SliceSource{Events: evs}); err != nil {
		t.Fatal(err)
	}
	if ms, err := scan.Pick(nil); err != nil || len(ms) != 1 || ms[0].ConditionID != "0xb" {
		t.Errorf("Pick(nil) = %v, %v; want 0xb", ms, err)
	}
	if ms, err := scan.Pick([]string{"0xB"}); err != nil || len(ms) != 1 {
		t.Errorf("Pick(0xB) = %v, %v", ms, err)
	}
	if _, err := scan.Pick([]string{"0xc"}); err == nil || !strings.Contains(err.Error(), "0xc cannot be replayed: market 0xc: no tick size") {
		t.Errorf("Pick(0xc): %v", err)
	}
	if _, err := scan.Pick([]string{"0xz"}); err == nil || !strings.Contains(err.Error(), "not in the recording") {
		t.Errorf("Pick(0xz): %v", err)
	}
}
