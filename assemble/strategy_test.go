package assemble

import (
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy"
)

// strategy.avellaneda.levels reaches the ladder of avellaneda and glft: a
// two-sided book gets that many quotes per side.
// testSnap is a market on a 0.01 tick whose two books show bid and ask,
// 100 shares each.
func testSnap(bid, ask string) *strategy.Snapshot {
	lv := func(p, s string) exchange.PriceLevel {
		return exchange.PriceLevel{Price: decimal.RequireFromString(p), Size: decimal.RequireFromString(s)}
	}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	return &strategy.Snapshot{ConditionID: "0xc", Tick: decimal.RequireFromString("0.01"), MinSize: decimal.RequireFromString("5"), Now: now,
		EndDate: now.Add(30 * 24 * time.Hour),
		Tokens: [2]strategy.TokenBook{
			{TokenID: "y", Bids: []exchange.PriceLevel{lv(bid, "100")}, Asks: []exchange.PriceLevel{lv(ask, "100")}, Updated: now},
			{TokenID: "n", Bids: []exchange.PriceLevel{lv(bid, "100")}, Asks: []exchange.PriceLevel{lv(ask, "100")}, Updated: now},
		}}
}

func TestStrategyParamsLadder(t *testing.T) {
	snap := testSnap("0.48", "0.52")
	for _, model := range []string{"avellaneda", "glft"} {
		for _, levels := range []int{1, 3} {
			cfg := configs.Defaults()
			cfg.Strategy.Model, cfg.Strategy.Avellaneda.Levels = model, levels
			p, est, err := StrategyParams(&cfg)
			if err != nil {
				t.Fatalf("%s levels=%d: %v", model, levels, err)
			}
			st, err := strategy.NewMarketState(est)
			if err != nil {
				t.Fatal(err)
			}
			st.Observe(snap)
			got := p.Model.Quote(nil, snap, st)
			if len(got) != 2*levels {
				t.Errorf("%s with levels = %d quoted %d orders, want %d: %+v", model, levels, len(got), 2*levels, got)
			}
		}
	}
}

// Limits the risk package refuses come back in its own words, once:
// "risk: limits: ...", not "risk: risk: limits: ...".
func TestStrategyParamsRiskErrorNamesRiskOnce(t *testing.T) {
	cfg := configs.Defaults()
	cfg.Risk.MaxPosition = decimal.NewFromInt(-1)
	_, _, err := StrategyParams(&cfg)
	if err == nil || !strings.HasPrefix(err.Error(), "risk: limits: ") || doubledPrefix(err.Error()) != "" {
		t.Fatalf("err = %v, want one \"risk: limits: \" prefix", err)
	}
}

// By default every model sells what the account holds before buying the
// other outcome; strategy.allow_sell = false keeps the BUY-only mode.
func TestStrategyParamsSellFirstByDefault(t *testing.T) {
	lv := func(p string) []exchange.PriceLevel {
		return []exchange.PriceLevel{{Price: decimal.RequireFromString(p), Size: decimal.RequireFromString("100")}}
	}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	snap := &strategy.Snapshot{ConditionID: "0xc", Tick: decimal.RequireFromString("0.01"), MinSize: decimal.RequireFromString("5"), Now: now,
		Tokens: [2]strategy.TokenBook{
			{TokenID: "y", Bids: lv("0.48"), Asks: lv("0.52"), Updated: now},
			{TokenID: "n", Bids: lv("0.48"), Asks: lv("0.52"), Updated: now},
		},
		Position: [2]decimal.Decimal{decimal.RequireFromString("100"), decimal.Zero}} // long 100 YES
	for _, model := range []string{"bands", "avellaneda", "glft"} {
		for _, allowSell := range []bool{true, false} {
			cfg := configs.Defaults()
			cfg.Strategy.Model = model
			if !allowSell {
				cfg.Strategy.AllowSell = false
			}
			p, est, err := StrategyParams(&cfg)
			if err != nil {
				t.Fatal(err)
			}
			st, err := strategy.NewMarketState(est)
			if err != nil {
				t.Fatal(err)
			}
			st.Observe(snap)
			var sells, buyNo int
			for _, d := range p.Model.Quote(nil, snap, st) {
				switch {
				case d.Side == exchange.Sell && d.Outcome == strategy.Yes:
					sells++
				case d.Side == exchange.Buy && d.Outcome == strategy.No:
					buyNo++
				}
			}
			if allowSell && (sells == 0 || buyNo != 0) || !allowSell && (sells != 0 || buyNo == 0) {
				t.Errorf("%s, allow_sell %v: %d SELL YES and %d BUY NO quotes while long 100 YES", model, allowSell, sells, buyNo)
			}
		}
	}
}

// [strategy.adverse]'s defaults are the strategy package's documented ones,
// and the rules wrap the model: a print through our bid pulls the quotes;
// enabled = false leaves them.
func TestStrategyParamsAdverse(t *testing.T) {
	cfg := configs.Defaults()
	if got, want := adverseParams(&cfg.Strategy.Adverse), strategy.DefaultAdverseParams(); got != want {
		t.Fatalf("config defaults %+v, strategy defaults %+v", got, want)
	}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	lv := func(p string) []exchange.PriceLevel {
		return []exchange.PriceLevel{{Price: decimal.RequireFromString(p), Size: decimal.RequireFromString("100")}}
	}
	snap := func(at time.Duration, prints ...strategy.TradePrint) *strategy.Snapshot {
		return &strategy.Snapshot{ConditionID: "0xc", Tick: decimal.RequireFromString("0.01"), MinSize: decimal.RequireFromString("5"), Now: now.Add(at),
			Tokens: [2]strategy.TokenBook{{TokenID: "y", Bids: lv("0.48"), Asks: lv("0.52")}, {TokenID: "n", Bids: lv("0.48"), Asks: lv("0.52")}},
			Open:   []strategy.OpenOrder{{ID: "b", Outcome: strategy.Yes, Side: exchange.Buy, Price: decimal.RequireFromString("0.49"), Size: decimal.RequireFromString("10")}},
			Trades: prints}
	}
	through := strategy.TradePrint{Outcome: strategy.Yes, Side: exchange.Sell, Price: decimal.RequireFromString("0.47"), Size: decimal.RequireFromString("50"), Time: now.Add(time.Second)}
	for _, enabled := range []bool{true, false} {
		cfg.Strategy.Adverse.Enabled = enabled
		p, est, err := StrategyParams(&cfg)
		if err != nil {
			t.Fatal(err)
		}
		st, err := strategy.NewMarketState(est)
		if err != nil {
			t.Fatal(err)
		}
		st.Observe(snap(0))
		s := snap(time.Second, through)
		st.Observe(s)
		if got := p.Model.Quote(nil, s, st); (len(got) == 0) != enabled {
			t.Errorf("enabled = %v: quotes %+v after a print through our bid", enabled, got)
		}
	}
	cfg.Strategy.Adverse.Enabled, cfg.Strategy.Adverse.MarkoutHorizon = true, configs.Duration(5*time.Second)
	if _, _, err := StrategyParams(&cfg); err == nil || !strings.Contains(err.Error(), "strategy.adverse") {
		t.Errorf("a bad horizon: %v", err)
	}
}

// doubledPrefix returns the word that line repeats as two prefixes in a
// row ("risk: risk: ..."), or "".
func doubledPrefix(line string) string {
	parts := strings.Split(line, ": ")
	for i := 0; i+1 < len(parts); i++ {
		words := strings.Fields(parts[i])
		if len(words) > 0 && words[len(words)-1] == parts[i+1] {
			return parts[i+1]
		}
	}
	return ""
}

// The default model is touch, built from [strategy.touch]: one tick inside
// the touch, the side adding to the position stepping back with it.
func TestStrategyParamsTouchIsTheDefault(t *testing.T) {
	snap := testSnap("0.45", "0.55")
	cfg := configs.Defaults()
	if cfg.Strategy.Model != "touch" {
		t.Fatalf("default model %q, want touch", cfg.Strategy.Model)
	}
	cfg.Strategy.AllowSell = false
	cfg.Strategy.Adverse.Enabled, cfg.Strategy.Rewards.Enabled = false, false
	cfg.Strategy.Touch.SkewShares, cfg.Strategy.Touch.MaxSkewTicks = decimal.NewFromInt(5), 2
	p, est, err := StrategyParams(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	st, err := strategy.NewMarketState(est)
	if err != nil {
		t.Fatal(err)
	}
	snap.Position[strategy.Yes] = decimal.NewFromInt(12) // two units of skew: the bid steps back two ticks
	st.Observe(snap)
	got := p.Model.Quote(nil, snap, st)
	if len(got) != 2 {
		t.Fatalf("quotes %+v, want a bid and an ask", got)
	}
	for _, d := range got {
		want := 0.44 // the YES bid: 0.46 less two ticks
		if d.Outcome == strategy.No {
			want = 1 - 0.54 // the ask one tick inside, as a NO bid
		}
		if d.Price < want-1e-3 || d.Price > want+1e-3 {
			t.Errorf("%+v: price %v, want %v", d, d.Price, want)
		}
	}
	cfg.Strategy.Touch.MaxSkewTicks = -1
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "strategy.touch.max_skew_ticks") {
		t.Fatalf("max_skew_ticks -1: %v", err)
	}
}
