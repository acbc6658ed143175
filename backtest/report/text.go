package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/shopspring/decimal"
)

// exact formats a decimal for machines (CSV): every digit up to 6 decimals.
func exact(d decimal.Decimal) string { return d.Round(6).String() }

// money formats an amount, a size or a price for people: to the cent from
// 1 up ("177.29", not "177.29328"), to four decimals below (a small PnL,
// a price on a 0.001 tick), trailing zeros dropped. The CSV and JSON keep
// every digit.
func money(d decimal.Decimal) string {
	if d.Abs().GreaterThanOrEqual(decimal.NewFromInt(1)) {
		return d.Round(2).String()
	}
	return d.Round(4).String()
}

// duration formats a span for people: whole seconds from 10 s up, three
// significant digits below ("9.25s", "250ms"), and no zero minutes or
// seconds ("1m", "2h", not "1m0s", "2h0m0s").
func duration(d time.Duration) string {
	a := d.Abs()
	switch {
	case a >= 10*time.Second:
		d = d.Round(time.Second)
	case a >= time.Second:
		d = d.Round(10 * time.Millisecond)
	case a >= 100*time.Millisecond:
		d = d.Round(time.Millisecond)
	case a >= 10*time.Millisecond:
		d = d.Round(100 * time.Microsecond)
	case a >= time.Millisecond:
		d = d.Round(10 * time.Microsecond)
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// num formats a statistic; NaN is "n/a" and infinities "inf"/"-inf".
func num(v float64, prec int) string {
	switch {
	case math.IsNaN(v):
		return "n/a"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	s := fmt.Sprintf("%.*f", prec, v)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-") // no "-0.00"
	}
	return s
}

// ratioLine shows Sharpe or Sortino with the samples behind it: "1.52 (3600
// samples of 1s)", or "n/a (149 samples of 1s, 2m29s; needs at least 30
// samples and 1h)" when the run is too short for the ratio
// (accounting.MinRatioSamples), "n/a (287 samples of 5m; the PnL did not
// vary)" when it is undefined for want of variance.
func ratioLine(r *accounting.Results, v float64) string {
	s := fmt.Sprintf("%d %s of %s", r.RatioSamples, plural(r.RatioSamples, "sample"), duration(r.Interval))
	switch {
	case r.RatiosTooFew():
		return fmt.Sprintf("n/a (%s, %s; needs at least %d samples and %s)", s, duration(time.Duration(r.RatioSamples)*r.Interval),
			accounting.MinRatioSamples, duration(accounting.MinRatioSpan))
	case math.IsNaN(v): // enough samples: the PnL changed by the same amount (nothing) every interval
		return "n/a (" + s + "; the PnL did not vary)"
	case math.IsInf(v, 1): // Sortino without a losing interval
		return num(v, 2) + " (" + s + "; no interval lost money)"
	}
	return num(v, 2) + " (" + s + ")"
}

// plural is word, with an s unless n is 1.
func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

func pct(v float64) string { return num(100*v, 2) + "%" }

// runLines are the lines that name what was run; every report starts with
// them, so that no result is read without its fill mode and latency.
func runLines(r *accounting.Results) [][2]string {
	mode := r.Run.Mode.String()
	if r.Run.Mode != fillmodel.ModeOptimistic {
		mode += " (queue model " + r.Run.Queue.String() + ")"
	}
	return [][2]string{
		{"data", orNone(r.Run.Data)},
		{"strategy", orNone(r.Run.Strategy)},
		{"period", r.Start.UTC().Format(time.RFC3339) + " to " + r.End.UTC().Format(time.RFC3339) + " (" + duration(r.End.Sub(r.Start)) + ")"},
		{"fill mode", mode},
		{"latency", r.Run.Latency.String()},
		{"fees", r.Run.Fees.String()},
		{"seed", fmt.Sprint(r.Run.Seed)},
	}
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// perNotional is the PnL in basis points of the collateral traded.
func perNotional(s *accounting.Summary) string {
	if !s.Notional.IsPositive() {
		return "n/a"
	}
	return s.PnL.Mul(decimal.NewFromInt(10_000)).Div(s.Notional).StringFixed(1) + " bps of " + money(s.Notional) + " notional"
}

// perFill is the PnL per fill in cents.
func perFill(s *accounting.Summary) string {
	if s.Fills == 0 {
		return "n/a"
	}
	return s.PnL.Mul(decimal.NewFromInt(100)).Div(decimal.NewFromInt(int64(s.Fills))).StringFixed(2) + " cents"
}

// summaryLines are the headline figures.
func summaryLines(r *accounting.Results) [][2]string {
	s := &r.Total
	wait := "n/a"
	if s.WaitSamples > 0 {
		wait = fmt.Sprintf("%s (%d orders)", duration(s.AvgWait), s.WaitSamples)
	}
	return [][2]string{
		{"PnL (marked)", money(s.PnL)},
		{"  per notional", perNotional(s)},
		{"  per fill", perFill(s)},
		{"  realized", money(s.Realized)},
		{"  unrealized", money(s.Unrealized)},
		{"  from spread", money(s.SpreadPnL)},
		{"  from inventory", money(s.InventoryPnL)},
		{"  fees", money(s.Fees)},
		{"volume", money(s.Volume) + " shares, " + money(s.Notional) + " notional"},
		{"fills", fmt.Sprintf("%d (%d taker)", s.Fills, s.TakerFills)},
		{"orders / cancels sent", fmt.Sprintf("%d / %d", s.OrdersSent, s.CancelsSent)},
		{"fill ratio", pct(s.FillRatio()) + " (" + money(s.FilledSize) + " of " + money(s.PlacedSize) + ")"},
		{"avg queue wait", wait},
		{"max drawdown", money(r.MaxDrawdown)},
		{"Sharpe (annualised)", ratioLine(r, r.Sharpe)},
		{"Sortino (annualised)", ratioLine(r, r.Sortino)},
		{"reward score share", pct(r.RewardShare()) + fmt.Sprintf(" (%d samples)", r.Samples)},
		{"rewards earned", money(r.RewardEarned()) + " (not in PnL)"},
	}
}

// WriteSummary writes the text summary of r: what was run, the headline
// figures, markouts, rate-cap use and a per-token table.
//
// For a run read from the order journal it writes what was read and how
// positions are marked, the figures the journal gives, a table per market
// and token, and the rate-cap use.
func WriteSummary(w io.Writer, r *accounting.Results) error {
	if journal(r) {
		return writeJournalSummary(w, r)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	p := func(format string, a ...any) { fmt.Fprintf(tw, format, a...) }
	p("mmbot backtest\n\n")
	for _, l := range runLines(r) {
		p("%s\t%s\n", l[0], l[1])
	}
	p("\n")
	for _, l := range summaryLines(r) {
		p("%s\t%s\n", l[0], l[1])
	}
	p("\nmarkouts (price units; positive = the mid moved our way)\n")
	p("horizon\tfills\tmean\tmedian\tsize-weighted\n")
	for _, m := range r.Markouts {
		p("%s\t%d\t%s\t%s\t%s\n", duration(m.Horizon), m.Count, num(m.Mean, 5), num(m.Median, 5), num(m.SizeWeight, 5))
	}
	p("\nmid-to-mid markouts (mid later − mid at the fill: the adverse selection, without the half spread)\n")
	p("horizon\tfills\tmean\tmedian\tsize-weighted\n")
	for _, m := range r.MidMarkouts {
		p("%s\t%d\t%s\t%s\t%s\n", duration(m.Horizon), m.Count, num(m.Mean, 5), num(m.Median, 5), num(m.SizeWeight, 5))
	}
	p("\nrate caps (most sent in any window, against the cap)\n")
	for _, u := range r.Rates {
		p("%s/%s\t%d of %d\t%s\n", u.Name, accounting.WindowLabel(u.Window), u.Peak, u.Cap, pct(u.Fraction()))
	}
	p("\ntoken\tposition\tmax |pos|\tmean |pos|\tmark\tPnL\tspread\tfills\tresolved\n")
	for _, t := range r.Tokens {
		p("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%v\n", textLabel(r.Run.Label(t.TokenID)), money(t.Position), money(t.MaxAbsPos),
			num(t.MeanAbsPos, 2), money(t.LastMid), money(t.PnL), money(t.SpreadPnL), t.Fills, t.Resolved)
	}
	return tw.Flush()
}

// textLabel keeps a token's label to one table column's width.
func textLabel(s string) string {
	if r := []rune(s); len(r) > 48 {
		return string(r[:20]) + "…" + string(r[len(r)-27:])
	}
	return s
}
