package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"time"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/internal/atomicfile"
)

//go:embed report.html.tmpl
var reportHTML string

type htmlToken struct {
	ID            string
	Label         string
	Outcome       string // "YES", "NO": the heading under its market; "" for a token without a market
	Rows          [][2]string
	PricePlot     template.HTML
	InventoryPlot template.HTML
}

type htmlReport struct {
	Title        string
	Badges       []string // what every result depends on: fill mode and latency, or the marks
	Generator    string
	Run          [][2]string
	Summary      [][2]string
	PnLPlot      template.HTML
	DrawdownPlot template.HTML
	Markets      []htmlMarket
	Markouts     [][5]string
	MarkoutPlots []template.HTML
	Rates        [][4]string
	TableHeader  []string // the per-market table (journal runs)
	Table        [][]string
	Unmeasured   string // what a journal report leaves out, in place of the markouts
}

// The colours of quotes and fills (Okabe–Ito, told apart with colour
// blindness too): our quotes in green and vermilion dashed lines, the
// fills in blue and reddish-purple points, so a fill never looks like a
// quote. Every pair is at least ΔE 45 apart in CIELAB (a test checks):
// the sell fills were orange, 33 from the vermilion ask.
const (
	colorBid      = "#009e73"
	colorAsk      = "#d55e00"
	colorBuyFill  = "#0072b2"
	colorSellFill = "#cc79a7"
)

func unix(t time.Time) float64 { return float64(t.Unix()) }

// WriteHTML writes a self-contained HTML report of r with inline SVG plots:
// cumulative PnL; per token the mid with our quotes and fills, and the
// inventory; the markout distributions. It uses no script and no external
// resource. For a run read from the order journal it adds the per-market
// table, plots the marks in place of the mid and the quotes, and says what
// it cannot measure in place of the markouts.
func WriteHTML(w io.Writer, r *accounting.Results) error {
	tmpl, err := template.New("report").Parse(reportHTML)
	if err != nil {
		return fmt.Errorf("report template: %w", err)
	}
	d := htmlReport{
		Title:     "mmbot backtest",
		Badges:    []string{"fill mode: " + r.Run.Mode.String(), "latency: " + r.Run.Latency.String()},
		Generator: "mmbot backtest",
	}
	if journal(r) {
		d.Title, d.Generator = "mmbot statement", "mmbot statement from the order journal"
		d.Badges = []string{"source: order journal", "marks: " + orNone(r.Run.Marks)}
		d.Run, d.Summary, d.Unmeasured = journalRunLines(r), journalSummaryLines(r), unmeasured
		d.TableHeader = tableHeader
		for _, row := range tableRows(r) {
			d.Table = append(d.Table, row.cells())
		}
	} else {
		d.Run, d.Summary = runLines(r), summaryLines(r)
	}
	if r.Run.Data != "" {
		d.Title += ": " + filepath.Base(r.Run.Data)
	}
	pnl := plotSeries{Name: "PnL", Color: "#1f5fbf", X: []float64{unix(r.Start)}, Y: []float64{0}}
	for _, t := range r.Totals {
		pnl.X = append(pnl.X, unix(t.Time))
		pnl.Y = append(pnl.Y, t.PnL.InexactFloat64())
	}
	pnl.X = append(pnl.X, unix(r.End))
	pnl.Y = append(pnl.Y, r.Total.PnL.InexactFloat64())
	d.PnLPlot = chart{Title: "Cumulative PnL (marked, net of fees)", YLabel: "collateral", Series: []plotSeries{pnl}}.render()
	d.DrawdownPlot = drawdownChart(r)
	d.Markets = htmlMarkets(r)
	for _, m := range r.Markouts {
		if journal(r) {
			break
		}
		d.Markouts = append(d.Markouts, [5]string{duration(m.Horizon), strconv.Itoa(m.Count), num(m.Mean, 5), num(m.Median, 5), num(m.SizeWeight, 5)})
		d.MarkoutPlots = append(d.MarkoutPlots, histogram(fmt.Sprintf("Markouts at %s (%d fills)", duration(m.Horizon), m.Count), "price units", m.Values))
	}
	for _, m := range r.MidMarkouts {
		if journal(r) {
			break
		}
		d.Markouts = append(d.Markouts, [5]string{duration(m.Horizon) + " mid-to-mid", strconv.Itoa(m.Count), num(m.Mean, 5), num(m.Median, 5), num(m.SizeWeight, 5)})
	}
	for _, u := range r.Rates {
		d.Rates = append(d.Rates, [4]string{u.Name + "/" + accounting.WindowLabel(u.Window), strconv.Itoa(u.Peak), strconv.Itoa(u.Cap), pct(u.Fraction())})
	}
	return tmpl.Execute(w, d)
}

func tokenSection(r *accounting.Results, tok *accounting.TokenSummary) htmlToken {
	if journal(r) {
		return journalTokenSection(r, tok)
	}
	h := htmlToken{ID: tok.TokenID, Label: r.Run.Label(tok.TokenID), Rows: [][2]string{
		{"PnL", money(tok.PnL)},
		{"from spread", money(tok.SpreadPnL)},
		{"fills", fmt.Sprintf("%d (%d taker)", tok.Fills, tok.TakerFills)},
		{"position at end", money(tok.Position)},
		{"max |position|", money(tok.MaxAbsPos)},
		{"mean |position|", num(tok.MeanAbsPos, 2)},
		{"resolved", fmt.Sprint(tok.Resolved)},
	}}
	mid := plotSeries{Name: "mid", Color: "#444"}
	bid := plotSeries{Name: "our bid", Color: colorBid, Step: true, Dashed: true}
	ask := plotSeries{Name: "our ask", Color: colorAsk, Step: true, Dashed: true}
	pos := plotSeries{Name: "position", Color: "#7b4fbf", Step: true}
	for _, s := range r.Series {
		if s.TokenID != tok.TokenID {
			continue
		}
		x := unix(s.Time)
		mid.X, bid.X, ask.X, pos.X = append(mid.X, x), append(bid.X, x), append(ask.X, x), append(pos.X, x)
		mid.Y = append(mid.Y, nanUnless(s.HasMid, s.Mid.InexactFloat64()))
		bid.Y = append(bid.Y, nanUnless(s.OurBid > 0, s.OurBid.Float()))
		ask.Y = append(ask.Y, nanUnless(s.OurAsk > 0, s.OurAsk.Float()))
		pos.Y = append(pos.Y, s.Position.InexactFloat64())
	}
	buys, sells := fillSeries(r, tok.TokenID)
	h.PricePlot = chart{Title: "Price, our quotes and fills", YLabel: "price",
		Series: []plotSeries{mid, bid, ask, buys, sells}}.render()
	h.InventoryPlot = chart{Title: "Inventory", YLabel: "shares", Series: []plotSeries{pos}}.render()
	return h
}

// journalTokenSection is tokenSection for a journal: the mark in place of
// the mid and the quotes.
func journalTokenSection(r *accounting.Results, tok *accounting.TokenSummary) htmlToken {
	mark := "-"
	if m := markOf(tok); m != "" {
		mark = m + " (" + tok.MarkSource + ")"
	}
	h := htmlToken{ID: tok.TokenID, Label: r.Run.Label(tok.TokenID), Rows: [][2]string{
		{"PnL", money(tok.PnL)},
		{"realized", money(tok.Realized)},
		{"unrealized", money(tok.Unrealized)},
		{"fees", money(tok.Fees)},
		{"fills", strconv.Itoa(tok.Fills)},
		{"volume", money(tok.Volume) + " shares, " + money(tok.Notional) + " notional"},
		{"position at end", money(tok.Position)},
		{"mark at end", mark},
		{"max |position|", money(tok.MaxAbsPos)},
	}}
	marks := plotSeries{Name: "mark", Color: "#444", Step: true}
	pos := plotSeries{Name: "position", Color: "#7b4fbf", Step: true}
	for _, s := range r.Series {
		if s.TokenID != tok.TokenID {
			continue
		}
		x := unix(s.Time)
		marks.X, pos.X = append(marks.X, x), append(pos.X, x)
		marks.Y = append(marks.Y, nanUnless(!s.Mark.IsZero(), s.Mark.InexactFloat64()))
		pos.Y = append(pos.Y, s.Position.InexactFloat64())
	}
	buys, sells := fillSeries(r, tok.TokenID)
	h.PricePlot = chart{Title: "Mark and fills", YLabel: "price", Series: []plotSeries{marks, buys, sells}}.render()
	h.InventoryPlot = chart{Title: "Inventory", YLabel: "shares", Series: []plotSeries{pos}}.render()
	return h
}

// fillSeries are the buy and sell fills of one token, as points.
func fillSeries(r *accounting.Results, token string) (buys, sells plotSeries) {
	buys = plotSeries{Name: "buy fills", Color: colorBuyFill, Scatter: true}
	sells = plotSeries{Name: "sell fills", Color: colorSellFill, Scatter: true}
	for _, f := range r.Fills {
		if f.TokenID != token {
			continue
		}
		if f.Side == exchange.Buy {
			buys.X, buys.Y = append(buys.X, unix(f.Time)), append(buys.Y, f.Price.Float())
		} else {
			sells.X, sells.Y = append(sells.X, unix(f.Time)), append(sells.Y, f.Price.Float())
		}
	}
	return buys, sells
}

func nanUnless(ok bool, v float64) float64 {
	if !ok {
		return math.NaN()
	}
	return v
}

// SaveReports writes summary.txt, series.csv and report.html into dir,
// each atomically.
func SaveReports(dir string, r *accounting.Results) error {
	for _, f := range []struct {
		name  string
		write func(io.Writer, *accounting.Results) error
	}{
		{"summary.txt", WriteSummary},
		{"series.csv", WriteCSV},
		{"report.html", WriteHTML},
	} {
		err := atomicfile.WriteFile(filepath.Join(dir, f.name), 0o644, func(w io.Writer) error { return f.write(w, r) })
		if err != nil {
			return fmt.Errorf("report %s: %w", f.name, err)
		}
	}
	return nil
}
