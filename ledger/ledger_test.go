package ledger_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/ledger"
	"github.com/mmbot/mmbot/state"
)

type want struct {
	name string
	got  decimal.Decimal
	want string
}

func checkDecimals(t *testing.T, cases []want) {
	t.Helper()
	for _, c := range cases {
		if !c.got.Equal(dec(c.want)) {
			t.Errorf("%s = %s, want %s", c.name, c.got, c.want)
		}
	}
}

func tokenOf(t *testing.T, r *accounting.Results, id string) accounting.TokenSummary {
	t.Helper()
	for _, ts := range r.Tokens {
		if ts.TokenID == id {
			return ts
		}
	}
	t.Fatalf("no token %s in the results", id)
	return accounting.TokenSummary{}
}

func load(t *testing.T, s *state.Store, p ledger.Period, o ledger.Options) (*ledger.Journal, *accounting.Results) {
	t.Helper()
	j, err := ledger.Load(s, p)
	if err != nil {
		t.Fatal(err)
	}
	r, err := j.Results(o)
	if err != nil {
		t.Fatal(err)
	}
	return j, r
}

// The whole journal, read through a copy while the writer holds the file,
// positions marked at their last fill price.
func TestWholeJournal(t *testing.T) {
	path, w := testJournal(t)
	s := readOnly(t, path)
	if _, ok := s.Snapshot(); !ok {
		t.Fatal("the read-only store reads the file itself while a writer holds it")
	}
	j, r := load(t, s, ledger.Period{To: at(30)}, ledger.Options{Interval: 5 * time.Minute, Data: path})
	// The period starts with the first order sent (minute 1), before the
	// first fill (minute 2).
	if p := j.Period(); !p.From.Equal(at(1)) || !p.To.Equal(at(30)) || !r.Start.Equal(at(1)) || !r.End.Equal(at(30)) {
		t.Errorf("period %s, results %s to %s", p, r.Start, r.End)
	}
	if j.Fills() != 6 || r.Total.Fills != 6 {
		t.Errorf("fills %d / %d, want 6", j.Fills(), r.Total.Fills)
	}
	y1, n1, y2 := tokenOf(t, r, yes1), tokenOf(t, r, no1), tokenOf(t, r, yes2)
	checkDecimals(t, []want{
		// YES1: bought 10 @0.40 (4.00), sold 6 @0.46 (2.76) and 4 @0.47
		// (1.88): 0.64 − fees 0.03 = 0.61, all realized, flat.
		{"YES1 volume", y1.Volume, "20"},
		{"YES1 notional", y1.Notional, "8.64"},
		{"YES1 fees", y1.Fees, "0.03"},
		{"YES1 realized", y1.Realized, "0.61"},
		{"YES1 PnL", y1.PnL, "0.61"},
		{"YES1 position", y1.Position, "0"},
		// NO1: 12 held at cost 6.60, marked at the last fill, 0.55.
		{"NO1 volume", n1.Volume, "12"},
		{"NO1 notional", n1.Notional, "6.6"},
		{"NO1 position", n1.Position, "12"},
		{"NO1 mark", n1.LastMid, "0.55"},
		{"NO1 PnL", n1.PnL, "0"},
		// YES2: 5 @0.30 and 5 @0.34 cost 3.20; 10 × 0.34 = 3.40 marked.
		{"YES2 notional", y2.Notional, "3.2"},
		{"YES2 position", y2.Position, "10"},
		{"YES2 mark", y2.LastMid, "0.34"},
		{"YES2 realized", y2.Realized, "0"},
		{"YES2 unrealized", y2.Unrealized, "0.2"},
		{"YES2 PnL", y2.PnL, "0.2"},
		{"total volume", r.Total.Volume, "42"},
		{"total notional", r.Total.Notional, "18.44"},
		{"total fees", r.Total.Fees, "0.03"},
		{"total realized", r.Total.Realized, "0.61"},
		{"total unrealized", r.Total.Unrealized, "0.2"},
		{"total PnL", r.Total.PnL, "0.81"},
		// Six orders reached the exchange (not the intent, not the failed
		// one): 60 shares placed, 42 filled.
		{"placed", r.Total.PlacedSize, "60"},
		{"filled", r.Total.FilledSize, "42"},
	})
	if r.Total.OrdersSent != 6 || r.Total.CancelsSent != 2 {
		t.Errorf("orders %d, cancels %d; want 6 and 2", r.Total.OrdersSent, r.Total.CancelsSent)
	}
	// The journal's own positions realized the same (its rule is the
	// accumulator's).
	positions, err := w.Positions()
	if err != nil {
		t.Fatal(err)
	}
	journaled := decimal.Zero
	for _, p := range positions {
		journaled = journaled.Add(p.RealizedPnL)
	}
	if !journaled.Equal(r.Total.Realized) {
		t.Errorf("journal realized %s, report %s", journaled, r.Total.Realized)
	}
	// Labels, markets, marks.
	run := r.Run
	if run.Source != accounting.SourceJournal || run.Data != path || run.Marks != "last fill price" {
		t.Errorf("run %+v", run)
	}
	for tok, label := range map[string]string{yes1: "0xc0ffee…0001 YES", no1: "0xc0ffee…0001 NO", yes2: "0xbeef00…0002 YES"} {
		if run.Labels[tok] != label || run.Markets[tok] != strings.TrimSuffix(strings.TrimSuffix(label, " YES"), " NO") {
			t.Errorf("token %s: label %q market %q, want %q", tok, run.Labels[tok], run.Markets[tok], label)
		}
	}
	if n1.MarkSource != ledger.MarkLastFill || y1.MarkSource != ledger.MarkLastFill {
		t.Errorf("mark sources %q %q", n1.MarkSource, y1.MarkSource)
	}
	// Positions over time: samples every 5 minutes from 12:05 to 12:30. At
	// 12:05 (before that minute's sale) YES1 holds 10 bought at 0.40 and
	// paid 0.02 in fees: PnL −0.02; from 12:15 on everything is booked.
	if len(r.Totals) != 6 || !r.Totals[0].Time.Equal(at(5)) || !r.Totals[0].PnL.Equal(dec("-0.02")) ||
		!r.Totals[2].PnL.Equal(dec("0.81")) || !r.Totals[5].PnL.Equal(dec("0.81")) {
		t.Errorf("totals %+v", r.Totals)
	}
	for _, row := range r.Series {
		if row.TokenID == yes2 && row.Time.Equal(at(15)) && (!row.Position.Equal(dec("10")) || !row.Mark.Equal(dec("0.34"))) {
			t.Errorf("YES2 at 12:15: %+v", row)
		}
	}
	if got := j.Open(); len(got) != 2 || got[0] != no1 || got[1] != yes2 {
		t.Errorf("open %v, want NO1 and YES2", got)
	}
}

// With the exchange's mids, open positions are marked at them; a token
// without a mid keeps its last fill price.
func TestMidMarks(t *testing.T) {
	path, _ := testJournal(t)
	s := readOnly(t, path)
	_, r := load(t, s, ledger.Period{To: at(30)}, ledger.Options{Mids: map[string]decimal.Decimal{no1: dec("0.60"), yes2: dec("0.31")}})
	checkDecimals(t, []want{
		{"NO1 PnL", tokenOf(t, r, no1).PnL, "0.6"},    // 12 × (0.60 − 0.55)
		{"YES2 PnL", tokenOf(t, r, yes2).PnL, "-0.1"}, // 10 × 0.31 − 3.20
		{"total PnL", r.Total.PnL, "1.11"},            // 0.61 + 0.6 − 0.1
		{"total realized", r.Total.Realized, "0.61"},
		{"total unrealized", r.Total.Unrealized, "0.5"},
	})
	if tokenOf(t, r, no1).MarkSource != ledger.MarkMid || !strings.Contains(r.Run.Marks, "mid at the end (2 of 2 open positions)") {
		t.Errorf("mark source %q, marks %q", tokenOf(t, r, no1).MarkSource, r.Run.Marks)
	}
	_, r = load(t, s, ledger.Period{To: at(30)}, ledger.Options{Mids: map[string]decimal.Decimal{no1: dec("0.60")}, MarksNote: "no book for 1 token"})
	if y2 := tokenOf(t, r, yes2); y2.MarkSource != ledger.MarkLastFill || !y2.LastMid.Equal(dec("0.34")) ||
		r.Run.Marks != "the exchange's mid at the end (1 of 2 open positions), else the last fill price (no book for 1 token)" {
		t.Errorf("YES2 marked at %s (%s); marks %q", y2.LastMid, y2.MarkSource, r.Run.Marks)
	}
}

// A period that starts with a position carried in: its PnL counts only
// what happened in the period, its realized PnL is against the cost.
func TestPeriod(t *testing.T) {
	path, _ := testJournal(t)
	s := readOnly(t, path)
	j, r := load(t, s, ledger.Period{From: at(6), To: at(11)}, ledger.Options{})
	// Before 12:06 YES1 bought 10 @0.40 and sold 6 @0.46: 4 left, cost
	// 4 × 0.40 = 1.60, last traded at 0.46 (worth 1.84). In the period: sell
	// 4 @0.47 (YES1), buy 12 @0.55 (NO1), buy 5 @0.30 (YES2); the 12:12 fill
	// is after the end.
	y1 := tokenOf(t, r, yes1)
	checkDecimals(t, []want{
		{"YES1 realized", y1.Realized, "0.28"},      // 1.88 − 1.60
		{"YES1 PnL", y1.PnL, "0.04"},                // 1.88 − 1.84
		{"YES1 unrealized", y1.Unrealized, "-0.24"}, // the 0.24 carried in was realized
		{"YES1 max |position|", y1.MaxAbsPos, "4"},
		{"total volume", r.Total.Volume, "21"},
		{"total notional", r.Total.Notional, "9.98"},
		{"total fees", r.Total.Fees, "0"},
		{"total PnL", r.Total.PnL, "0.04"},
		{"placed", r.Total.PlacedSize, "15"}, // sent at 12:06 and 12:09; 12:11 is the end (excluded)
	})
	if r.Total.Fills != 3 || r.Total.OrdersSent != 2 || r.Total.CancelsSent != 0 || !r.Start.Equal(at(6)) {
		t.Errorf("fills %d, orders %d, cancels %d, start %s", r.Total.Fills, r.Total.OrdersSent, r.Total.CancelsSent, r.Start)
	}
	if got := j.Open(); len(got) != 2 || got[0] != no1 || got[1] != yes2 {
		t.Errorf("open at 12:11: %v, want NO1 and YES2", got)
	}
	// A position carried through a period without fills of its token is
	// still reported.
	_, r = load(t, s, ledger.Period{From: at(9), To: at(11)}, ledger.Options{})
	if n1 := tokenOf(t, r, no1); !n1.Position.Equal(dec("12")) || n1.Fills != 0 || !n1.PnL.IsZero() {
		t.Errorf("NO1 carried: %+v", n1)
	}
}

func TestLoadErrors(t *testing.T) {
	path, _ := testJournal(t)
	s := readOnly(t, path)
	cases := []struct {
		name string
		p    ledger.Period
		err  error
		msg  string
	}{
		{"after the last fill", ledger.Period{From: at(13), To: at(30)}, ledger.ErrEmptyPeriod,
			"none from 2026-03-01T12:13:00Z to 2026-03-01T12:30:00Z; the journal's 6 fills run from 2026-03-01T12:02:00Z to 2026-03-01T12:12:00Z"},
		{"before the first fill", ledger.Period{To: at(2)}, ledger.ErrEmptyPeriod, "none to 2026-03-01T12:02:00Z"},
		{"no end", ledger.Period{From: at(1)}, ledger.ErrBadPeriod, "no end"},
		{"backwards", ledger.Period{From: at(5), To: at(5)}, ledger.ErrBadPeriod, "ends before it starts"},
	}
	for _, c := range cases {
		_, err := ledger.Load(s, c.p)
		if !errors.Is(err, c.err) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %v saying %q", c.name, err, c.err, c.msg)
		}
	}
	empty, err := state.Open(t.TempDir()+"/empty.db", state.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	if _, err := ledger.Load(empty, ledger.Period{To: at(30)}); !errors.Is(err, ledger.ErrEmptyPeriod) || !strings.Contains(err.Error(), "holds no fills") {
		t.Errorf("empty journal: %v", err)
	}
}

func TestInterval(t *testing.T) {
	for _, c := range []struct{ span, want time.Duration }{
		{time.Minute, time.Second},
		{30 * time.Minute, 10 * time.Second},
		{24 * time.Hour, 5 * time.Minute},
		{30 * 24 * time.Hour, 6 * time.Hour},
		{365 * 24 * time.Hour, 24 * time.Hour},
	} {
		if got := ledger.Interval(c.span); got != c.want {
			t.Errorf("Interval(%s) = %s, want %s", c.span, got, c.want)
		}
	}
}
