package strategy

import (
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// rewardBook is a 0.49/0.51 market (100 shares a level on both tokens)
// paying 100 a day within 3 cents to at least 20 shares.
func rewardBook() *Snapshot {
	s := book("0.01", "0.49", "0.51", "0.49", "0.51")
	s.Rewards = RewardTerms{MinSize: d("20"), MaxSpread: d("3"), DailyRate: d("100")}
	return s
}

// lossyState has 20 measured fills of 20 shares, bought at 0.48 over the
// 100 s before t0, marked out at 10 s against a fair value of fair.
func lossyState(t *testing.T, fair float64) *MarketState {
	t.Helper()
	st, err := NewMarketState(DefaultEstimatorParams())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		st.Adverse.Markouts.Add(OwnFill{Outcome: Yes, Side: exchange.Buy, Price: 0.48, Size: 20, Time: t0.Add(-100*time.Second + time.Duration(4*i)*time.Second)})
	}
	st.Adverse.Markouts.Measure(t0, fair, nil)
	return st
}

func TestRewardDecision(t *testing.T) {
	bands, err := NewBands(BandsParams{Offsets: []float64{0.05}, Sizes: []float64{10}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := WithRewards(bands, DefaultRewardParams())
	if err != nil {
		t.Fatal(err)
	}
	// The band quotes are 0.48 YES and 0.48 NO (0.52 in YES terms), 20
	// shares: s = 0.02 → (1/3)² × 20 = 20/9 a side, Q_min 20/9. The book
	// (ours not in it; the NO book mirrors the YES book, so it counts
	// once) scores 4/9 × 100 a side: Q_min 400/9. Share 20/(20+400) =
	// 1/21, income 100/21 = 4.76 a day.
	inBand := []dq{{Yes, exchange.Buy, 0.48, 20, 0}, {No, exchange.Buy, 0.48, 20, 0}}
	model := []dq{{Yes, exchange.Buy, 0.45, 10, 0}, {No, exchange.Buy, 0.45, 10, 0}}
	const income = 100.0 / 21
	cases := []struct {
		name string
		st   func(t *testing.T) *MarketState
		pays bool
		cost float64
		want []dq
	}{
		{"no state: no markouts, pays", func(*testing.T) *MarketState { return nil }, true, 0, inBand},
		{"no fills yet: pays", func(t *testing.T) *MarketState { st, _ := NewMarketState(DefaultEstimatorParams()); return st }, true, 0, inBand},
		// 400 shares over 100 s = 4 a second; 2 cents lost a share:
		// 0.02 × 4 × 86400 = 6912 a day, far above 4.76.
		{"heavy adverse selection: does not pay", func(t *testing.T) *MarketState { return lossyState(t, 0.46) }, false, 6912, model},
		// 0.002 cents a share: 0.00002 × 4 × 86400 = 6.912 > 4.76.
		{"small loss above the reward: does not pay", func(t *testing.T) *MarketState { return lossyState(t, 0.47998) }, false, 6.912, model},
		// 0.0005 cents a share: 1.728 < 4.76.
		{"smaller loss below the reward: pays", func(t *testing.T) *MarketState { return lossyState(t, 0.479995) }, true, 1.728, inBand},
		{"fills made money: pays", func(t *testing.T) *MarketState { return lossyState(t, 0.50) }, true, 0, inBand},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := c.st(t)
			checkQuotes(t, m.Quote(nil, rewardBook(), st), c.want)
			if st == nil {
				return
			}
			dc := st.Rewards
			if !dc.Decided || dc.Pays != c.pays || !dc.At.Equal(t0) {
				t.Fatalf("decision %+v, want pays %v", dc, c.pays)
			}
			approx(t, "share", dc.Share, 1.0/21, 1e-9)
			approx(t, "income", dc.Income, income, 1e-9)
			approx(t, "cost", dc.Cost, c.cost, 1e-6)
		})
	}
}

// Band quotes above the order limits do not pay: the risk checks would
// refuse them or shrink them below the reward minimum.
func TestRewardDecisionOrderLimits(t *testing.T) {
	bands, err := NewBands(BandsParams{Offsets: []float64{0.05}, Sizes: []float64{10}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name             string
		maxSize, maxNotl float64
		pays             bool
	}{
		{"no limits", 0, 0, true},
		{"within both", 20, 9.6, true}, // 20 × 0.48 = 9.6
		{"size above max_order_size", 19.99, 0, false},
		{"notional above max_order_notional", 0, 9.5, false},
	} {
		p := DefaultRewardParams()
		p.MaxSize, p.MaxNotional = c.maxSize, c.maxNotl
		m, err := WithRewards(bands, p)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := NewMarketState(DefaultEstimatorParams())
		q := m.Quote(nil, rewardBook(), st)
		if st.Rewards.Pays != c.pays || st.Rewards.TooLarge == c.pays || (q[0].Size == 20) != c.pays {
			t.Errorf("%s: %v, quotes %+v", c.name, st.Rewards, q)
		}
	}
	if _, err := WithRewards(stub{}, RewardParams{Enabled: true, Always: true, MaxSize: -1}); err == nil {
		t.Error("a negative MaxSize accepted")
	}
}

// A decision stands for Hold, then is made again on the new evidence.
func TestRewardDecisionHold(t *testing.T) {
	bands, err := NewBands(BandsParams{Offsets: []float64{0.05}, Sizes: []float64{10}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := WithRewards(bands, DefaultRewardParams())
	if err != nil {
		t.Fatal(err)
	}
	st, err := NewMarketState(DefaultEstimatorParams())
	if err != nil {
		t.Fatal(err)
	}
	s := rewardBook()
	if m.Quote(nil, s, st); !st.Rewards.Pays {
		t.Fatalf("no fills: %v", st.Rewards)
	}
	lossy := lossyState(t, 0.46)
	lossy.Rewards = st.Rewards
	s.Now = t0.Add(59 * time.Second)
	if q := m.Quote(nil, s, lossy); !lossy.Rewards.Pays || q[0].Size != 20 {
		t.Fatalf("decision remade within Hold: %v %+v", lossy.Rewards, q)
	}
	s.Now = t0.Add(time.Minute)
	if q := m.Quote(nil, s, lossy); lossy.Rewards.Pays || q[0].Size != 10 || !lossy.Rewards.At.Equal(s.Now) {
		t.Fatalf("decision not remade after Hold: %v %+v", lossy.Rewards, q)
	}
	if lossy.Rewards.String() == "" || (RewardDecision{}).String() != "undecided" {
		t.Fatal("String")
	}
}

// A market without a reward program is quoted as the model says.
func TestRewardDecisionNoProgram(t *testing.T) {
	bands, err := NewBands(BandsParams{Offsets: []float64{0.05}, Sizes: []float64{10}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := WithRewards(bands, DefaultRewardParams())
	if err != nil {
		t.Fatal(err)
	}
	st, _ := NewMarketState(DefaultEstimatorParams())
	s := book("0.01", "0.49", "0.51", "0.49", "0.51")
	checkQuotes(t, m.Quote(nil, s, st), []dq{{Yes, exchange.Buy, 0.45, 10, 0}, {No, exchange.Buy, 0.45, 10, 0}})
	if st.Rewards.Pays {
		t.Fatalf("a market without rewards pays: %v", st.Rewards)
	}
}

func TestRewardParamsValidate(t *testing.T) {
	for _, bad := range []RewardParams{
		{Enabled: true, MarkoutHorizon: 7 * time.Second, MarkoutFills: 20},
		{Enabled: true, MarkoutHorizon: 10 * time.Second, MarkoutFills: 0},
		{Enabled: true, MarkoutHorizon: 10 * time.Second, MarkoutFills: 257},
		{Enabled: true, MarkoutHorizon: 10 * time.Second, MarkoutFills: 20, Hold: -time.Second},
	} {
		if _, err := WithRewards(stub{}, bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	for _, ok := range []RewardParams{{}, {Enabled: true, Always: true}, DefaultRewardParams()} {
		if _, err := WithRewards(stub{}, ok); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
}
