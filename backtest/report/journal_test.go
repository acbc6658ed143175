package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"html/template"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/exchange"
)

// journalResults is a period of an order journal as package ledger books
// it: no books, fees as charged, marks at the last fill and one mid.
//
//	YES1 (market A): buy 10 @0.40 fee 0.02 at 1:00, sell 10 @0.46 fee 0.01 at 2:00
//	NO1  (market A): 12 carried in at cost 6.60, last traded 0.55; mid 0.60 at the end
//	YES2 (market B): buy 10 @0.30 at 3:00
func journalResults(t *testing.T) *accounting.Results {
	t.Helper()
	acc := accounting.NewAccumulator(accounting.AccumulatorConfig{Interval: fixture.Sec(60).Sub(fixture.Sec(0))})
	acc.Advance(fixture.Sec(0))
	y1, n1, y2 := acc.Token("tokY1"), acc.Token("tokN1"), acc.Token("tokY2")
	n1.OnOpen(fixture.Sec(0), fixture.Dec("12"), fixture.Dec("6.6"), fixture.Dec("0.55"), "last fill")
	place := func(a *accounting.TokenAcc, at float64, side exchange.Side, price, size string) {
		a.OnPlace(fixture.Sec(at), fillmodel.VirtualOrder{Side: side, Price: fixture.Fx(t, price), Size: fixture.Fx(t, size)})
	}
	fill := func(a *accounting.TokenAcc, at float64, side exchange.Side, price, size, fee string) {
		a.OnFillFee(fillmodel.Fill{OrderID: "o", Side: side, Price: fixture.Fx(t, price), Size: fixture.Fx(t, size), Time: fixture.Sec(at)}, fixture.Dec(fee))
		a.OnMark(fixture.Sec(at), fixture.Dec(price), "last fill")
	}
	place(y1, 30, exchange.Buy, "0.40", "10")
	fill(y1, 60, exchange.Buy, "0.40", "10", "0.02")
	place(y1, 90, exchange.Sell, "0.46", "10")
	fill(y1, 120, exchange.Sell, "0.46", "10", "0.01")
	place(y2, 150, exchange.Buy, "0.30", "20")
	fill(y2, 180, exchange.Buy, "0.30", "10", "0")
	y2.OnCancel(fixture.Sec(200))
	n1.OnMark(fixture.Sec(300), fixture.Dec("0.60"), "mid")
	r, err := acc.Finish(fixture.Sec(300))
	if err != nil {
		t.Fatal(err)
	}
	r.Run = accounting.RunInfo{Source: accounting.SourceJournal, Data: "/var/lib/mmbot/mmbot.db",
		Marks:   "the exchange's mid at the end (1 of 2 open positions), else the last fill price",
		Labels:  map[string]string{"tokY1": "0xc0ffee…0001 YES", "tokN1": "0xc0ffee…0001 NO", "tokY2": "0xbeef00…0002 YES"},
		Markets: map[string]string{"tokY1": "0xc0ffee…0001", "tokN1": "0xc0ffee…0001", "tokY2": "0xbeef00…0002"}}
	// The daemon's reward estimate, as mmbot statement reads it from the
	// journal's hourly records.
	r.RewardsByMarket = map[string]decimal.Decimal{"0xc0ffee…0001": fixture.Dec("0.25")}
	r.Reward.Earned = fixture.Fx(t, "0.25")
	return r
}

// The per-market table, checked by hand: YES1 realizes 4.60 − 4.00 − 0.03
// = 0.57; NO1's 12 shares gain 0.05 each (0.55 → 0.60); YES2 is flat at
// its fill price. Markets come in name order, YES before NO.
func TestJournalTableCSV(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTableCSV(&b, journalResults(t)); err != nil {
		t.Fatal(err)
	}
	want := "market,outcome,token,fills,volume,notional,fees,position,mark,marked_by,realized,unrealized,pnl\n" +
		"0xbeef00…0002,YES,tokY2,1,10,3,0,10,0.3,last fill,0,0,0\n" +
		"0xc0ffee…0001,YES,tokY1,2,20,8.6,0.03,0,0.46,last fill,0.57,0,0.57\n" +
		"0xc0ffee…0001,NO,tokN1,0,0,0,0,12,0.6,mid,0,0.6,0.6\n" +
		"0xc0ffee…0001,all,,2,20,8.6,0.03,,,,0.57,0.6,1.17\n" +
		"total,,,3,30,11.6,0.03,,,,0.57,0.6,1.17\n"
	if b.String() != want {
		t.Errorf("table CSV:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestJournalFillsCSV(t *testing.T) {
	var b bytes.Buffer
	if err := WriteFillsCSV(&b, journalResults(t)); err != nil {
		t.Fatal(err)
	}
	want := "time,token,label,order,side,price,size,fee\n" +
		"2026-03-01T12:01:00Z,tokY1,0xc0ffee…0001 YES,o,BUY,0.4,10,0.02\n" +
		"2026-03-01T12:02:00Z,tokY1,0xc0ffee…0001 YES,o,SELL,0.46,10,0.01\n" +
		"2026-03-01T12:03:00Z,tokY2,0xbeef00…0002 YES,o,BUY,0.3,10,0\n"
	if b.String() != want {
		t.Errorf("fills CSV:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestJournalReportsGolden(t *testing.T) {
	r := journalResults(t)
	var txt, series, html, js bytes.Buffer
	for _, w := range []struct {
		b     *bytes.Buffer
		write func(*bytes.Buffer, *accounting.Results) error
	}{
		{&txt, func(b *bytes.Buffer, r *accounting.Results) error { return WriteSummary(b, r) }},
		{&series, func(b *bytes.Buffer, r *accounting.Results) error { return WriteCSV(b, r) }},
		{&html, func(b *bytes.Buffer, r *accounting.Results) error { return WriteHTML(b, r) }},
		{&js, func(b *bytes.Buffer, r *accounting.Results) error { return WriteJSON(b, r) }},
	} {
		if err := w.write(w.b, r); err != nil {
			t.Fatal(err)
		}
	}
	checkGolden(t, "journal.golden.txt", txt.Bytes())
	checkGolden(t, "journal.golden.csv", series.Bytes())
	checkGolden(t, "journal.golden.html", html.Bytes())
	checkGolden(t, "journal.golden.json", js.Bytes())
	// What the backtest's reports show and a journal cannot measure is
	// left out, and each report says how positions are marked.
	for name, b := range map[string]string{"text": txt.String(), "html": html.String(), "json": js.String()} {
		for _, bad := range []string{"fill mode", "latency", "markout", "from spread", "queue wait", "reward score", "reward share"} {
			rest := strings.ReplaceAll(strings.ReplaceAll(b, unmeasured, ""), template.HTMLEscapeString(unmeasured), "")
			if strings.Contains(strings.ToLower(rest), bad) {
				t.Errorf("%s report mentions %q", name, bad)
			}
		}
		if name != "html" && !strings.Contains(b, "0.25") {
			t.Errorf("%s report does not show the rewards earned", name)
		}
		if !strings.Contains(b, "the exchange's mid at the end (1 of 2 open positions)") && !strings.Contains(b, "the exchange&#39;s mid at the end (1 of 2 open positions)") {
			t.Errorf("%s report does not state the marks", name)
		}
	}
	// The series has the marks, not the (absent) book columns: YES2 at
	// 12:04 holds 10 shares marked at 0.30, cash −3.
	if !strings.HasPrefix(series.String(), "time,token,market,mark,position,cash,fees,pnl,fills\n") ||
		!strings.Contains(series.String(), "2026-03-01T12:04:00Z,tokY2,0xbeef00…0002,0.3,10,-3,0,0,1\n") {
		t.Errorf("series CSV:\n%s", series.String())
	}
	var parsed struct {
		Source  string
		Results struct{ PnL, Realized, Unrealized string }
		Markets []struct{ Market, PnL string }
		Tokens  []struct {
			Token, Outcome string
			MarkedBy       string `json:"marked_by"`
		}
	}
	if err := json.Unmarshal(js.Bytes(), &parsed); err != nil {
		t.Fatal(err)
	}
	if parsed.Source != "journal" || parsed.Results.PnL != "1.17" || parsed.Results.Unrealized != "0.6" || len(parsed.Markets) != 2 ||
		parsed.Markets[1].PnL != "1.17" || len(parsed.Tokens) != 3 || parsed.Tokens[2].Outcome != "NO" || parsed.Tokens[2].MarkedBy != "mid" {
		t.Errorf("JSON %+v", parsed)
	}
}

func TestJournalHTMLSelfContained(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, journalResults(t)); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script", "http:", "https:", "src=", "href=", "@import", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("report contains %q", bad)
		}
	}
	svgs := regexp.MustCompile(`(?s)<svg.*?</svg>`).FindAllString(page, -1)
	// PnL and drawdown, then the marks and the inventory of each of three
	// tokens; no markout histograms.
	if len(svgs) != 8 {
		t.Fatalf("%d plots, want 8", len(svgs))
	}
	for i, s := range svgs {
		if err := xml.Unmarshal([]byte(s), new(struct{})); err != nil {
			t.Errorf("plot %d is not well-formed: %v", i, err)
		}
	}
	for _, want := range []string{"<h2>Markets</h2>", "source: order journal", "Mark and fills", "<h2>Not measured</h2>",
		"<td>0xc0ffee…0001</td><td>all</td><td class=\"n\">2</td>", "Generated by mmbot statement from the order journal"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// A period that ends now is not on a second; its length is shown rounded.
func TestJournalPeriodRounded(t *testing.T) {
	r := journalResults(t)
	r.End = r.End.Add(400 * time.Millisecond)
	var b bytes.Buffer
	if err := WriteSummary(&b, r); err != nil {
		t.Fatal(err)
	}
	if want := "period   2026-03-01T12:00:00Z to 2026-03-01T12:05:00Z (5m0s)\n"; !strings.Contains(b.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, b.String())
	}
}
