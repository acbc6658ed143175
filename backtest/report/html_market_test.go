package report

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/exchange"
)

// twoMarkets is a replay of two binary markets: one whose question is
// known, one known by its name only, and a token of no market.
func twoMarkets(t *testing.T) *accounting.Results {
	t.Helper()
	run := accounting.RunInfo{
		Labels:    map[string]string{"y1": "rain YES", "n1": "rain NO", "y2": "0xab…cd YES", "n2": "0xab…cd NO"},
		Markets:   map[string]string{"y1": "rain", "n1": "rain", "y2": "0xab…cd", "n2": "0xab…cd"},
		Questions: map[string]string{"rain": "Will it rain in Paris on 1 March?"},
	}
	acc := accounting.NewAccumulator(accounting.AccumulatorConfig{Run: run})
	fill := func(tok *accounting.TokenAcc, at float64, side exchange.Side, price, size string) {
		tok.OnFill(fillmodel.Fill{OrderID: "o", Side: side, Price: fixture.Fx(t, price), Size: fixture.Fx(t, size), Time: fixture.Sec(at)})
	}
	// Token ids sort n1, n2, other, y1, y2: the report must not follow them.
	y1, n1, y2, n2, other := acc.Token("y1"), acc.Token("n1"), acc.Token("y2"), acc.Token("n2"), acc.Token("other")
	for i, tok := range []*accounting.TokenAcc{y1, n1, y2, n2, other} {
		tok.OnBook(fixture.Sec(float64(i)), top(t, "0.40", "0.60"))
	}
	fill(y1, 10, exchange.Buy, "0.40", "20")
	fill(n1, 20, exchange.Buy, "0.40", "8")
	fill(y2, 30, exchange.Buy, "0.40", "5")
	fill(n2, 40, exchange.Buy, "0.40", "5")
	fill(other, 50, exchange.Sell, "0.60", "3")
	r, err := acc.Finish(fixture.Sec(120))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The HTML report groups the outcomes of a market under its question (or
// its name), YES first, with the market's net position.
func TestHTMLGroupsOutcomesByMarket(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, twoMarkets(t)); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	heads := regexp.MustCompile(`<h[23]>([^<]*)</h[23]>`).FindAllStringSubmatch(page, -1)
	var got []string
	for _, h := range heads {
		got = append(got, h[1])
	}
	want := []string{"Summary", "Cumulative PnL",
		"0xab…cd", "YES", "NO",
		"Token other", // by market name: "0xab…cd", "other", "rain"
		"Will it rain in Paris on 1 March?", "YES", "NO",
		"Markouts", "Rate caps"}
	if strings.Join(got, " | ") != strings.Join(want, " | ") {
		t.Errorf("headings\n %s\nwant\n %s", strings.Join(got, " | "), strings.Join(want, " | "))
	}
	for _, s := range []string{
		`<p class="tok">market rain</p>`,
		`<tr><th>net position</th><td class="n">12 YES (YES 20, NO 8)</td></tr>`,
		`<tr><th>net position</th><td class="n">flat (YES 5, NO 5)</td></tr>`,
		`<p class="tok">token y1</p>`,
	} {
		if !strings.Contains(page, s) {
			t.Errorf("report lacks %s", s)
		}
	}
}

// Fills and quotes are drawn in colours of their own.
func TestHTMLFillColoursDifferFromQuotes(t *testing.T) {
	colours := map[string]string{"our bid": colorBid, "our ask": colorAsk, "buy fills": colorBuyFill, "sell fills": colorSellFill}
	seen := map[string]string{}
	for name, c := range colours {
		if other, ok := seen[c]; ok {
			t.Errorf("%s and %s are both %s", name, other, c)
		}
		seen[c] = name
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, twoMarkets(t)); err != nil {
		t.Fatal(err)
	}
	// The fills of y1 (a buy) and of other (a sell) are points in their colours.
	for _, c := range []string{colorBuyFill, colorSellFill} {
		if !strings.Contains(b.String(), `r="2.5" fill="`+c+`"`) {
			t.Errorf("no fill drawn in %s", c)
		}
	}
}

// The drawdown plot falls to the max drawdown of the summary.
func TestHTMLDrawdownPlot(t *testing.T) {
	acc := accounting.NewAccumulator(accounting.AccumulatorConfig{Interval: 10 * 1e9})
	a := acc.Token("X")
	a.OnBook(fixture.Sec(0), top(t, "0.40", "0.60"))
	a.OnFill(fillmodel.Fill{OrderID: "o", Side: exchange.Buy, Price: fixture.Fx(t, "0.40"), Size: fixture.Fx(t, "10"), Time: fixture.Sec(5)})
	a.OnBook(fixture.Sec(15), top(t, "0.20", "0.40")) // mid 0.30: PnL −1 from +1
	a.OnBook(fixture.Sec(25), top(t, "0.30", "0.50")) // mid 0.40: PnL 0
	r, err := acc.Finish(fixture.Sec(30))
	if err != nil {
		t.Fatal(err)
	}
	plot := string(drawdownChart(r))
	if !r.MaxDrawdown.Equal(fixture.Dec("2")) || !strings.Contains(plot, "Drawdown from the running peak (max 2)") {
		t.Errorf("max drawdown %s; plot title in %.200s", r.MaxDrawdown, plot)
	}
	if !strings.Contains(plot, `class="tick">-2</text>`) || !strings.Contains(plot, `class="tick">0</text>`) {
		t.Errorf("the drawdown axis does not run from 0 to -2: %s", plot)
	}
}

// Sharpe and Sortino are shown with their sample count and interval in
// every report, and as n/a (JSON null) when there are too few samples.
func TestRatiosShowTheirSamples(t *testing.T) {
	r := twoMarkets(t) // two minutes of one-minute samples
	var txt, html, js bytes.Buffer
	for _, w := range []struct {
		f func(io.Writer, *accounting.Results) error
		b *bytes.Buffer
	}{{WriteSummary, &txt}, {WriteHTML, &html}, {WriteJSON, &js}} {
		if err := w.f(w.b, r); err != nil {
			t.Fatal(err)
		}
	}
	want := "n/a (2 samples of 1m, 2m; needs at least 30 samples and 1h)"
	if !strings.Contains(txt.String(), "Sharpe (annualised)    "+want) || !strings.Contains(txt.String(), "Sortino (annualised)   "+want) {
		t.Errorf("text summary:\n%s", txt.String())
	}
	if !strings.Contains(html.String(), `<tr><th>Sharpe (annualised)</th><td class="n">`+want+`</td></tr>`) {
		t.Error("the HTML report does not show the samples beside Sharpe")
	}
	var out struct {
		Results map[string]any `json:"results"`
	}
	if err := json.Unmarshal(js.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if out.Results["sharpe"] != nil || out.Results["sortino"] != nil || out.Results["ratio_samples"] != 2.0 || out.Results["ratio_interval_ns"] != 6e10 {
		t.Errorf("JSON results: sharpe %v sortino %v ratio_samples %v ratio_interval_ns %v", out.Results["sharpe"], out.Results["sortino"],
			out.Results["ratio_samples"], out.Results["ratio_interval_ns"])
	}
	// With enough samples the ratio is a number, still with its samples.
	r.RatioSamples, r.Interval, r.Sharpe = 3600, time.Second, 1.5
	if got := ratioLine(r, r.Sharpe); got != "1.50 (3600 samples of 1s)" {
		t.Errorf("ratio line %q", got)
	}
}

// A ratio that is n/a says why: too short a run, or a PnL that never
// varied (mmbot statement over a day with one minute of trading: "n/a (287
// samples of 5m)" gave no reason).
func TestRatioLineSaysWhyNA(t *testing.T) {
	r := twoMarkets(t)
	r.RatioSamples, r.Interval = 287, 5*time.Minute
	if got, want := ratioLine(r, math.NaN()), "n/a (287 samples of 5m; the PnL did not vary)"; got != want {
		t.Errorf("ratio line %q, want %q", got, want)
	}
	r.RatioSamples, r.Interval = 120, 30*time.Second
	if got, want := ratioLine(r, 2.25), "2.25 (120 samples of 30s)"; got != want {
		t.Errorf("ratio line %q, want %q", got, want)
	}
	if got, want := ratioLine(r, math.Inf(1)), "inf (120 samples of 30s; no interval lost money)"; got != want {
		t.Errorf("ratio line %q, want %q", got, want)
	}
}
