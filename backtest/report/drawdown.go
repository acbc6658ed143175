package report

import (
	"html/template"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/accounting"
)

// drawdownChart plots how far the portfolio's PnL stands below its running
// peak (zero at a new high), at the points of the PnL plot: the start, each
// sample and the end. Its deepest point is the max drawdown of the summary.
func drawdownChart(r *accounting.Results) template.HTML {
	dd := plotSeries{Name: "below the peak", Color: "#b03060"}
	var peak decimal.Decimal
	add := func(x float64, pnl decimal.Decimal, first bool) {
		if first || pnl.GreaterThan(peak) {
			peak = pnl
		}
		dd.X = append(dd.X, x)
		dd.Y = append(dd.Y, pnl.Sub(peak).InexactFloat64())
	}
	add(unix(r.Start), decimal.Zero, true)
	for _, t := range r.Totals {
		add(unix(t.Time), t.PnL, false)
	}
	add(unix(r.End), r.Total.PnL, false)
	title := "Drawdown from the running peak (max " + money(r.MaxDrawdown) + ")"
	return chart{Title: title, YLabel: "collateral", Series: []plotSeries{dd}}.render()
}
