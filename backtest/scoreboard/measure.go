package scoreboard

import (
	"math"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/replay"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy"
)

// Row is the outcome of one model on one scenario under one fill mode.
type Row struct {
	Scenario string
	Model    string
	Mode     fillmodel.Mode
	Rep      int // the scenario's replica (its seed's index)

	PnL         decimal.Decimal // marked PnL at the end, fees included, rewards not
	PnLSD       float64         // sd of the per-minute PnL changes
	MaxDrawdown decimal.Decimal
	// InventorySD is the sd over the minute samples of a market's net
	// position (YES shares − NO shares), averaged over the markets.
	InventorySD float64
	Fills       int
	Volume      decimal.Decimal // shares filled
	Notional    decimal.Decimal // collateral traded
	// Markout10s and Markout60s are the mean markouts per fill in price
	// units (positive: the market moved our way); NaN without fills.
	Markout10s, Markout60s float64
	// MidMarkout10s and MidMarkout60s are the mean mid-to-mid markouts per
	// fill: side × (mid later − mid at the fill), the adverse selection
	// suffered without the half spread; NaN without fills.
	MidMarkout10s, MidMarkout60s float64
	// RewardShare is our share of the liquidity-reward score (NaN when no
	// market pays rewards); Reward is its income: our pro-rata part of the
	// markets' pools over the samples (Results.RewardEarned).
	RewardShare float64
	Reward      decimal.Decimal
	Orders      int
	// Breaches counts the fills after which a market's net position
	// |YES − NO| exceeded MaxPosition, or the sum over markets exceeded
	// MaxTotalPosition. It must be 0: the risk checker bounds the worst
	// case of open orders and positions before any order is sent.
	Breaches int

	markets int  // the scenario's recorded markets
	pays    bool // the scenario's markets pay rewards: Reward is an estimate
}

// OrdersPerFill is orders sent per fill (NaN without fills).
func (r *Row) OrdersPerFill() float64 {
	if r.Fills == 0 {
		return math.NaN()
	}
	return float64(r.Orders) / float64(r.Fills)
}

// measure turns a run's results into its row.
func measure(sc *Scenario, model string, mode fillmodel.Mode, res *accounting.Results, scan *replay.MarketScan, set *Setup) Row {
	r := Row{Scenario: sc.Name, Model: model, Mode: mode, PnL: res.Total.PnL, MaxDrawdown: res.MaxDrawdown,
		Fills: res.Total.Fills, Volume: res.Total.Volume, Notional: res.Total.Notional, Orders: res.Total.OrdersSent,
		Markout10s: math.NaN(), Markout60s: math.NaN(), MidMarkout10s: math.NaN(), MidMarkout60s: math.NaN(),
		RewardShare: math.NaN(), markets: len(scan.Markets)}
	for _, m := range res.MidMarkouts {
		if m.Count == 0 {
			continue
		}
		switch m.Horizon {
		case 10 * time.Second:
			r.MidMarkout10s = m.Mean
		case time.Minute:
			r.MidMarkout60s = m.Mean
		}
	}
	for _, m := range res.Markouts {
		if m.Count == 0 {
			continue
		}
		switch m.Horizon {
		case 10 * time.Second:
			r.Markout10s = m.Mean
		case time.Minute:
			r.Markout60s = m.Mean
		}
	}
	if res.Samples > 0 && res.Reward.Total > 0 {
		r.RewardShare = res.RewardShare()
		if sc.Rewards != nil {
			r.pays = true
			r.Reward = res.RewardEarned().Round(2)
		}
	}
	var pnl []float64
	for _, t := range res.Totals {
		f, _ := t.PnL.Float64()
		pnl = append(pnl, f)
	}
	r.PnLSD = sd(diffs(pnl))
	r.InventorySD = inventorySD(res, scan.Markets)
	r.Breaches = breaches(res.Fills, scan.Markets, set.MaxPosition, set.MaxTotalPosition)
	return r
}

// inventorySD is the mean over markets of the sd of the market's net
// position over the samples.
func inventorySD(res *accounting.Results, markets []strategy.Market) float64 {
	if len(markets) == 0 {
		return 0
	}
	side := map[string]int{} // token → index of its market, *2, + outcome
	for i, m := range markets {
		side[m.TokenIDs[strategy.Yes]] = 2 * i
		side[m.TokenIDs[strategy.No]] = 2*i + 1
	}
	// Series rows come per interval in token order: gather each sample's
	// positions.
	nets := make([][]float64, len(markets))
	var at time.Time
	cur := make([]float64, 2*len(markets))
	flush := func() {
		for i := range markets {
			nets[i] = append(nets[i], cur[2*i]-cur[2*i+1])
		}
	}
	for k, row := range res.Series {
		if k > 0 && !row.Time.Equal(at) {
			flush()
		}
		at = row.Time
		if j, ok := side[row.TokenID]; ok {
			cur[j], _ = row.Position.Float64()
		}
	}
	if len(res.Series) > 0 {
		flush()
	}
	var sum float64
	for _, n := range nets {
		sum += sd(n)
	}
	return sum / float64(len(markets))
}

// breaches counts the fills after which a market's net position or the
// sum of them is beyond the limits.
func breaches(fills []accounting.FillRecord, markets []strategy.Market, maxPos, maxTotal decimal.Decimal) int {
	side := map[string]int{}
	for i, m := range markets {
		side[m.TokenIDs[strategy.Yes]] = 2 * i
		side[m.TokenIDs[strategy.No]] = 2*i + 1
	}
	pos := make([]exchange.Fixed, 2*len(markets))
	lim, _ := exchange.FixedRound(maxPos, exchange.RoundTrunc)
	limTotal, _ := exchange.FixedRound(maxTotal, exchange.RoundTrunc)
	n := 0
	for _, f := range fills {
		j, ok := side[f.TokenID]
		if !ok {
			continue
		}
		if f.Side == exchange.Buy {
			pos[j] += f.Size
		} else {
			pos[j] -= f.Size
		}
		var total exchange.Fixed
		over := false
		for i := range markets {
			net := abs(pos[2*i] - pos[2*i+1])
			total += net
			over = over || (lim > 0 && net > lim)
		}
		if over || (limTotal > 0 && total > limTotal) {
			n++
		}
	}
	return n
}

func abs(f exchange.Fixed) exchange.Fixed {
	if f < 0 {
		return -f
	}
	return f
}

func diffs(xs []float64) []float64 {
	if len(xs) < 2 {
		return nil
	}
	out := make([]float64, len(xs)-1)
	for i := 1; i < len(xs); i++ {
		out[i-1] = xs[i] - xs[i-1]
	}
	return out
}

// sd is the population standard deviation (0 for fewer than two values).
func sd(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	var mean float64
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	var v float64
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	return math.Sqrt(v / float64(len(xs)))
}
