package strategy

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

// stub is a model that returns fixed quotes.
type stub []Desired

func (m stub) Quote(dst []Desired, _ *Snapshot, _ *MarketState) []Desired { return append(dst, m...) }

func TestEndDatePhase(t *testing.T) {
	p := EndDateParams{Taper: 2 * time.Hour, ReduceOnly: time.Hour, Stop: 10 * time.Minute, MinFactor: 0.5}
	cases := []struct {
		tau    time.Duration
		phase  EndDatePhase
		factor float64
	}{
		{3 * time.Hour, PhaseNormal, 1},
		{2 * time.Hour, PhaseNormal, 1},
		{90 * time.Minute, PhaseTaper, 0.75}, // 0.5 + 0.5·(30 min / 60 min)
		{61 * time.Minute, PhaseTaper, 0.5 + 0.5/60},
		{time.Hour, PhaseReduceOnly, 1},
		{11 * time.Minute, PhaseReduceOnly, 1},
		{10 * time.Minute, PhaseStopped, 0},
		{0, PhaseStopped, 0},
	}
	for _, c := range cases {
		ph, f := p.Phase(c.tau)
		if ph != c.phase || math.Abs(f-c.factor) > 1e-12 {
			t.Errorf("τ %s: phase %d factor %v, want %d %v", c.tau, ph, f, c.phase, c.factor)
		}
	}
}

func TestWithEndDate(t *testing.T) {
	inner := stub{
		{Outcome: Yes, Side: exchange.Buy, Price: 0.49, Size: 10, Level: 0},
		{Outcome: No, Side: exchange.Buy, Price: 0.49, Size: 10, Level: 0},
		{Outcome: Yes, Side: exchange.Buy, Price: 0.47, Size: 10, Level: 1},
		{Outcome: No, Side: exchange.Buy, Price: 0.47, Size: 10, Level: 1},
	}
	m, err := WithEndDate(inner, EndDateParams{Taper: 2 * time.Hour, ReduceOnly: time.Hour, Stop: 10 * time.Minute, MinFactor: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		tau  time.Duration // 0: no end date
		pos  [2]string
		want []dq
	}{
		{"no end date", 0, [2]string{"0", "0"}, []dq{{Yes, "BUY", 0.49, 10, 0}, {No, "BUY", 0.49, 10, 0}, {Yes, "BUY", 0.47, 10, 1}, {No, "BUY", 0.47, 10, 1}}},
		{"taper", 90 * time.Minute, [2]string{"0", "0"}, []dq{{Yes, "BUY", 0.49, 7.5, 0}, {No, "BUY", 0.49, 7.5, 0}, {Yes, "BUY", 0.47, 7.5, 1}, {No, "BUY", 0.47, 7.5, 1}}},
		// Long 14 YES: only asks (BUY NO), 10 then the 4 left.
		{"reduce long", 30 * time.Minute, [2]string{"14", "0"}, []dq{{No, "BUY", 0.49, 10, 0}, {No, "BUY", 0.47, 4, 1}}},
		{"reduce short", 30 * time.Minute, [2]string{"0", "6"}, []dq{{Yes, "BUY", 0.49, 6, 0}}},
		{"reduce flat", 30 * time.Minute, [2]string{"5", "5"}, nil},
		{"stopped", 5 * time.Minute, [2]string{"14", "0"}, nil},
	}
	for _, c := range cases {
		s := book("0.01", "0.49", "0.51", "", "")
		if c.tau > 0 {
			s.EndDate = t0.Add(c.tau)
		}
		s.Position = [2]decimal.Decimal{d(c.pos[0]), d(c.pos[1])}
		prefix := []Desired{{Outcome: Yes, Side: exchange.Buy, Price: 0.1, Size: 1}}
		got := m.Quote(prefix, s, nil)
		if got[0] != prefix[0] {
			t.Fatalf("%s: the wrapper touched quotes before its own", c.name)
		}
		t.Run(c.name, func(t *testing.T) { checkQuotes(t, got[1:], c.want) })
	}
	for _, bad := range []EndDateParams{
		{Stop: -1, MinFactor: 1},
		{Stop: time.Hour, ReduceOnly: time.Minute, Taper: 2 * time.Hour, MinFactor: 1},
		{ReduceOnly: time.Hour, Taper: time.Minute, MinFactor: 1},
		{MinFactor: 0},
	} {
		if _, err := WithEndDate(inner, bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestWithRewards(t *testing.T) {
	bands := func(offs ...float64) Model {
		m, err := NewBands(BandsParams{Offsets: offs, Sizes: []float64{10, 10}[:len(offs)]})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	terms := RewardTerms{MinSize: d("20"), MaxSpread: d("3"), DailyRate: d("100")}
	cases := []struct {
		name  string
		m     Model
		p     RewardParams
		yb    string
		ya    string
		terms RewardTerms
		want  []dq
	}{
		// Mid 0.50, v = 0.03, allowed 0.03 − tick = 0.02: level 1 (0.45/0.55)
		// is pulled in to 0.48/0.52, sizes rise to 20.
		{"pull in and size up", bands(0.01, 0.05), RewardParams{Enabled: true, Always: true}, "0.49", "0.51", terms, []dq{
			{Yes, "BUY", 0.49, 20, 0}, {No, "BUY", 0.49, 20, 0}, {Yes, "BUY", 0.48, 20, 1}, {No, "BUY", 0.48, 20, 1},
		}},
		{"merge levels that meet", bands(0.03, 0.05), RewardParams{Enabled: true, Always: true}, "0.49", "0.51", terms, []dq{
			{Yes, "BUY", 0.48, 40, 0}, {No, "BUY", 0.48, 40, 0},
		}},
		{"disabled", bands(0.01, 0.05), RewardParams{}, "0.49", "0.51", terms, []dq{
			{Yes, "BUY", 0.49, 10, 0}, {No, "BUY", 0.49, 10, 0}, {Yes, "BUY", 0.45, 10, 1}, {No, "BUY", 0.45, 10, 1},
		}},
		{"no reward program", bands(0.05), RewardParams{Enabled: true, Always: true}, "0.49", "0.51", RewardTerms{}, []dq{
			{Yes, "BUY", 0.45, 10, 0}, {No, "BUY", 0.45, 10, 0},
		}},
		// Mid 0.95 is outside [0.10, 0.90]: a one-sided model gets its
		// missing ask added at mid + allowed = 0.97 (a NO bid at 0.03).
		{"two-sided outside the band", stub{{Outcome: Yes, Side: exchange.Buy, Price: 0.93, Size: 5}}, RewardParams{Enabled: true, Always: true}, "0.94", "0.96", terms, []dq{
			{Yes, "BUY", 0.93, 20, 0}, {No, "BUY", 0.03, 20, 0},
		}},
		{"one-sided inside the band stays", stub{{Outcome: Yes, Side: exchange.Buy, Price: 0.48, Size: 25}}, RewardParams{Enabled: true, Always: true}, "0.49", "0.51", terms, []dq{
			{Yes, "BUY", 0.48, 25, 0},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := book("0.01", c.yb, c.ya, "", "")
			s.Rewards = c.terms
			w, err := WithRewards(c.m, c.p)
			if err != nil {
				t.Fatal(err)
			}
			checkQuotes(t, w.Quote(nil, s, nil), c.want)
		})
	}
}

func TestEstimateRewards(t *testing.T) {
	s := book("0.01", "0.49", "0.51", "0.49", "0.51")
	s.Rewards = RewardTerms{MinSize: d("20"), MaxSpread: d("3"), DailyRate: d("100")}
	ours := []OpenOrder{
		open("a", Yes, exchange.Buy, "0.50", "50"), // s = 0 → S = 1 → Q1 += 50
		open("b", No, exchange.Buy, "0.49", "30"),  // YES-space ask 0.51, s = 0.01 → 4/9·30 = 13.33 → Q2
		open("c", Yes, exchange.Buy, "0.50", "10"), // below the reward minimum: nothing
		open("d", Yes, exchange.Buy, "0.45", "50"), // outside the max spread: nothing
	}
	e := EstimateRewards(s, ours)
	// Others: the NO book mirrors the YES book (0.49/0.51 both), two views
	// of one market book: the YES book alone counts. Each level is 0.01
	// from the mid: 4/9·100 = 44.44; Q1 = Q2 = 400/9, book QMin 400/9.
	// Ours: QMin = max(min(50, 13.33), max(50/3, 13.33/3)) = 16.67.
	// Share = 16.67 / (16.67 + 44.44) = 0.2727; daily = 27.27.
	approx(t, "Q1", e.QOne, 50, 1e-9)
	approx(t, "Q2", e.QTwo, 40.0/3, 1e-9)
	approx(t, "QMin", e.QMin, 50.0/3, 1e-9)
	approx(t, "book QMin", e.BookQMin, 400.0/9, 1e-9)
	approx(t, "share", e.Share, (50.0/3)/(50.0/3+400.0/9), 1e-12)
	approx(t, "daily", e.DailyRewards, 100*(50.0/3)/(50.0/3+400.0/9), 1e-9)

	// Books that are not mirrors list each token's own orders: both count.
	// YES 0.49/0.51 and NO 0.48/0.52 (0.01 and 0.02 from the NO mid 0.50):
	// Q1 = 400/9 (YES bid) + 100/9 (NO ask 0.52 → a YES bid at 0.48), Q2 =
	// 400/9 + 100/9: book QMin 500/9.
	sep := book("0.01", "0.49", "0.51", "0.48", "0.52")
	sep.Rewards = s.Rewards
	approx(t, "book QMin of separate books", EstimateRewards(sep, ours).BookQMin, 500.0/9, 1e-9)

	// Our orders in the book are not counted as the others'.
	mine := []OpenOrder{open("e", Yes, exchange.Buy, "0.49", "20"), ours[1]}
	e2 := EstimateRewards(withOwn(s, mine), mine)
	approx(t, "book QMin without ours", e2.BookQMin, 400.0/9, 1e-9)
	if (EstimateRewards(book("0.01", "", "", "", ""), ours) != RewardEstimate{}) {
		t.Fatal("estimate without a mid")
	}
	if !strings.Contains(e.String(), "share") {
		t.Fatalf("String: %q", e.String())
	}
}
