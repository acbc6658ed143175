package report

import (
	"bytes"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/backtest/internal/synthetic"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/internal/golden"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got, *update)
}

// top is a book of one level a side, 100 shares each.
func top(t *testing.T, bid, ask string) *recording.FixedBook {
	return &recording.FixedBook{Bids: []recording.Level{{Price: fixture.Fx(t, bid), Size: fixture.Fx(t, "100")}},
		Asks: []recording.Level{{Price: fixture.Fx(t, ask), Size: fixture.Fx(t, "100")}}}
}

func TestReportsGolden(t *testing.T) {
	r := synthetic.Scenario(t)
	var txt, csvb, html bytes.Buffer
	if err := WriteSummary(&txt, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteCSV(&csvb, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&html, r); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "report.golden.txt", txt.Bytes())
	checkGolden(t, "report.golden.csv", csvb.Bytes())
	checkGolden(t, "report.golden.html", html.Bytes())
	// Every report names the fill mode and the latency.
	for name, b := range map[string][]byte{"text": txt.Bytes(), "html": html.Bytes()} {
		if !bytes.Contains(b, []byte("queue (queue model power n=2)")) || !bytes.Contains(b, []byte("order 50ms, cancel 0s, data 0s")) {
			t.Errorf("%s report does not state the fill mode and latency", name)
		}
	}
	// Deterministic: a second run renders byte for byte the same.
	var again bytes.Buffer
	if err := WriteHTML(&again, synthetic.Scenario(t)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), html.Bytes()) {
		t.Error("HTML report differs between two identical runs")
	}
}

func TestHTMLSelfContained(t *testing.T) {
	r := synthetic.Scenario(t)
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script", "http:", "https:", "src=", "href=", "@import", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("report contains %q", bad)
		}
	}
	svgs := regexp.MustCompile(`(?s)<svg.*?</svg>`).FindAllString(page, -1)
	// PnL, drawdown, price and inventory of one token, three markout
	// histograms.
	if len(svgs) != 7 {
		t.Fatalf("%d plots, want 7", len(svgs))
	}
	for i, s := range svgs {
		if err := xml.Unmarshal([]byte(s), new(struct{})); err != nil {
			t.Errorf("plot %d is not well-formed: %v", i, err)
		}
	}
	if !strings.Contains(svgs[1], "Drawdown") {
		t.Error("no drawdown plot after the PnL plot")
	}
	if !strings.Contains(svgs[2], `<circle`) || !strings.Contains(svgs[2], "our bid") {
		t.Error("price plot lacks fills or quotes")
	}
}

func TestReportEscapesNames(t *testing.T) {
	acc := accounting.NewAccumulator(accounting.AccumulatorConfig{Run: accounting.RunInfo{Strategy: `<b>"x"</b>`, Data: "a&b.gz"}})
	a := acc.Token(`<img onerror=1>`)
	a.OnBook(fixture.Sec(0), top(t, "0.4", "0.6"))
	r, err := acc.Finish(fixture.Sec(200))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "<img") || strings.Contains(b.String(), "<b>") {
		t.Error("names are not escaped")
	}
}

func TestCSVMultiToken(t *testing.T) {
	acc := accounting.NewAccumulator(accounting.AccumulatorConfig{})
	yes, no := acc.Token("yes"), acc.Token("no")
	yes.OnBook(fixture.Sec(0), top(t, "0.60", "0.62"))
	no.OnBook(fixture.Sec(0), top(t, "0.38", "0.40"))
	yes.OnFill(fillmodel.Fill{OrderID: "1", Side: exchange.Buy, Price: fixture.Fx(t, "0.60"), Size: fixture.Fx(t, "10"), Time: fixture.Sec(10)})
	no.OnFill(fillmodel.Fill{OrderID: "2", Side: exchange.Buy, Price: fixture.Fx(t, "0.38"), Size: fixture.Fx(t, "10"), Time: fixture.Sec(20)})
	r, err := acc.Finish(fixture.Sec(61))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteCSV(&b, r); err != nil {
		t.Fatal(err)
	}
	want := "time,token,best_bid,best_ask,mid,our_bid,our_ask,position,cash,fees,pnl,fills\n" +
		"2026-03-01T12:01:00Z,no,0.38,0.4,0.39,,,10,-3.8,0,0.1,1\n" +
		"2026-03-01T12:01:00Z,yes,0.6,0.62,0.61,,,10,-6,0,0.1,1\n" +
		"2026-03-01T12:01:00Z,*,,,,,,,-9.8,0,0.2,\n"
	if b.String() != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestSaveReports(t *testing.T) {
	dir := t.TempDir()
	if err := SaveReports(dir, synthetic.Scenario(t)); err != nil {
		t.Fatal(err)
	}
	fixture.AssertDirEntries(t, dir, "report.html", "series.csv", "summary.txt")
	if err := SaveReports(filepath.Join(dir, "missing"), synthetic.Scenario(t)); err == nil {
		t.Error("saving into a missing directory succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); err == nil {
		t.Error("directory created")
	}
}

func TestNiceTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{
		{0, 10, "[0 2 4 6 8 10]"},
		{0.47, 0.53, "[0.48 0.5 0.52]"},
		{-3, 7, "[-2 0 2 4 6]"},
		{5, 5, "[5]"},
	} {
		got := niceTicks(c.lo, c.hi, 5)
		var parts []string
		for _, v := range got {
			parts = append(parts, fmtTick(v))
		}
		if s := "[" + strings.Join(parts, " ") + "]"; s != c.want {
			t.Errorf("niceTicks(%v, %v) = %s, want %s", c.lo, c.hi, s, c.want)
		}
	}
	x := make([]float64, 5000)
	y := make([]float64, 5000)
	for i := range x {
		x[i], y[i] = float64(i), float64(i)
	}
	tx, _ := thin(x, y)
	if len(tx) > maxPlotPoints+1 || tx[len(tx)-1] != 4999 || tx[0] != 0 {
		t.Errorf("thin kept %d points, last %v", len(tx), tx[len(tx)-1])
	}
	_ = time.Second
}

func TestTimeTicks(t *testing.T) {
	base := float64(fixture.T0.Unix())
	for _, c := range []struct {
		span float64
		n    int
		step float64
	}{{170, 5, 30}, {3600, 6, 600}, {86400 * 3, 6, 43200}, {5, 6, 1}} {
		got := timeTicks(base+7, base+7+c.span)
		if len(got) != c.n || got[1]-got[0] != c.step {
			t.Errorf("span %v: ticks %v", c.span, got)
		}
	}
}

// Spans shown to people are rounded to three significant digits (whole
// seconds from 10 s) and carry no zero units.
func TestDurationForPeople(t *testing.T) {
	for _, c := range []struct {
		in   time.Duration
		want string
	}{
		{34177183875 * time.Nanosecond, "34s"},
		{10601775624 * time.Nanosecond, "11s"},
		{9252702596 * time.Nanosecond, "9.25s"},
		{time.Minute, "1m"},
		{2*time.Hour + 400*time.Millisecond, "2h"},
		{time.Hour + 90*time.Second, "1h1m30s"},
		{250 * time.Millisecond, "250ms"},
		{12345678 * time.Nanosecond, "12.3ms"},
		{1234567 * time.Nanosecond, "1.23ms"},
		{1500 * time.Nanosecond, "1.5µs"},
		{0, "0s"},
		{-9252702596 * time.Nanosecond, "-9.25s"},
	} {
		if got := duration(c.in); got != c.want {
			t.Errorf("duration(%d) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Time-axis labels never repeat, and they resolve the tick spacing.
func TestTimeLabelsDistinct(t *testing.T) {
	base := float64(fixture.T0.Unix())
	for _, c := range []struct {
		from, span float64
		first      string
	}{
		{7, 170, "12:00:30"},                     // 30 s ticks: seconds shown
		{7, 150, "12:00:30"},                     // 2.5 minutes (the run)
		{7, 5, "12:00:07"},                       // 1 s ticks
		{7, 3600, "12:10"},                       // 10-minute ticks
		{7, 86400 * 3, "03-02 00:00"},            // half-day ticks cross days: dated
		{11.5 * 3600, 3600, "23:30"},             // across midnight at 10 minutes
		{0, 86400 * 30, "03-05"},                 // weekly ticks
		{-3600 * 12, 1.5 * 86400, "03-01 00:00"}, // 6-hour ticks across a day boundary
	} {
		ticks := timeTicks(base+c.from, base+c.from+c.span)
		labels := timeLabels(ticks)
		if !unique(labels) {
			t.Errorf("span %v from %v: labels repeat: %v", c.span, c.from, labels)
		}
		if len(labels) < 2 || labels[0] != c.first {
			t.Errorf("span %v from %v: labels %v, want the first %q", c.span, c.from, labels, c.first)
		}
	}
	if got := timeLabels([]float64{base}); len(got) != 1 || got[0] != "12:00:00" {
		t.Errorf("a lone tick: %v", got)
	}
}
