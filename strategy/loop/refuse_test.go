package loop

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/clocktest"
	"github.com/mmbot/mmbot/strategy"
)

type refuseReports struct{ reps []CycleReport }

func (r *refuseReports) OnCycle(rep *CycleReport) { r.reps = append(r.reps, *rep) }

// spoil makes the book of token garbage: its tick is 0.7.
func spoil(v *fakeVenue, token string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	b := v.books[token]
	b.TickSize = decimal.RequireFromString("0.7")
	v.books[token] = b
}

// openIn counts the live orders the fake exchange holds on these tokens.
func openIn(v *fakeVenue, tokens ...string) int {
	v.mu.Lock()
	defer v.mu.Unlock()
	n := 0
	for _, o := range v.orders {
		for _, t := range tokens {
			if o.AssetID == t && o.Status == exchange.StatusLive {
				n++
			}
		}
	}
	return n
}

// TestLoopRefusesGarbageBooks: with CheckBook, a market whose book turns to
// garbage has its orders cancelled and gets no new one while the garbage
// lasts, with one log line however many cycles it lasts, a reason in every
// cycle's report and the refusal in its status; the other market keeps
// quoting. Once its books pass again it is quoted again.
func TestLoopRefusesGarbageBooks(t *testing.T) {
	good := testMarket()
	bad := testMarket()
	bad.ConditionID, bad.TokenIDs = "0xbad", [2]string{"yes2", "no2"}
	v := newFakeVenue()
	for _, tok := range []string{"yes", "no", "yes2", "no2"} {
		v.setBook(tok, "0.48", "0.52", lt0)
	}
	clock := clocktest.New(lt0)
	model, err := strategy.NewBands(strategy.BandsParams{Offsets: []float64{0.02}, Sizes: []float64{10}})
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	reps := &refuseReports{}
	l, err := New(Config{Markets: []strategy.Market{good, bad}, Estimators: strategy.DefaultEstimatorParams(), CheckBook: exchange.ValidateBook,
		Params: Params{Model: model, Tolerance: strategy.Tolerance{PriceTicks: 0, SizeFrac: 0.1}}},
		v, &fakeSigner{}, newMemJournal(), clock, zerolog.New(&logs), reps)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	cycle := func() {
		t.Helper()
		clock.Advance(time.Second)
		for _, tok := range []string{"yes", "no", "yes2", "no2"} {
			v.mu.Lock()
			b := v.books[tok]
			b.Timestamp = decimalMillis(clock.Now())
			v.books[tok] = b
			v.mu.Unlock()
		}
		mustCycle(t, l)
	}
	cycle()
	if openIn(v, "yes2", "no2") == 0 || openIn(v, "yes", "no") == 0 {
		t.Fatalf("both markets should quote at first: %d and %d orders", openIn(v, "yes", "no"), openIn(v, "yes2", "no2"))
	}

	spoil(v, "no2")
	for range 5 {
		cycle()
		if n := openIn(v, "yes2", "no2"); n != 0 {
			t.Fatalf("%d orders live on the market with a garbage book", n)
		}
		last := reps.reps[len(reps.reps)-1]
		if len(last.BooksRefused) != 1 || last.BooksRefused[0] != exchange.InvalidTick {
			t.Fatalf("report BooksRefused = %v, want [tick_size]", last.BooksRefused)
		}
	}
	if n := strings.Count(logs.String(), MsgBookRefused); n != 1 {
		t.Errorf("%d refusal lines over 5 cycles, want 1; log:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), `"market":"0xbad"`) || !strings.Contains(logs.String(), `"reason":"tick_size"`) {
		t.Errorf("the line does not name the market and the reason:\n%s", logs.String())
	}
	st := l.Status()
	if !strings.Contains(st.Markets[1].Refused, "tick size") || st.Markets[0].Refused != "" {
		t.Errorf("status Refused = %q / %q", st.Markets[0].Refused, st.Markets[1].Refused)
	}
	if openIn(v, "yes", "no") == 0 {
		t.Error("the good market stopped quoting")
	}
	for _, o := range v.orders {
		if (o.AssetID == "yes2" || o.AssetID == "no2") && o.Status == exchange.StatusLive {
			t.Errorf("order %s live on the refused market", o.ID)
		}
	}

	v.setBook("no2", "0.48", "0.52", clock.Now()) // honest again
	cycle()
	if openIn(v, "yes2", "no2") == 0 {
		t.Error("the market was not quoted again once its books passed")
	}
	if st := l.Status(); st.Markets[1].Refused != "" {
		t.Errorf("status still refused: %q", st.Markets[1].Refused)
	}
	if !strings.Contains(logs.String(), "quoting resumes") {
		t.Errorf("no line on the recovery:\n%s", logs.String())
	}
}

func decimalMillis(t time.Time) string { return decimal.NewFromInt(t.UnixMilli()).String() }
