package export_test

import (
	"errors"
	"math"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/export"
	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/backtest/internal/synthetic"
	"github.com/mmbot/mmbot/backtest/sweep"
	"github.com/mmbot/mmbot/exchange"
)

func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

func optPx(f exchange.Fixed) string {
	if f == 0 {
		return "null"
	}
	return f.Decimal().String()
}

func optAmt(d decimal.Decimal, ok bool) string {
	if !ok {
		return "null"
	}
	return d.String()
}

// scenario is the accounting's hand-computed run, with a market name for
// its token and amounts that need more than 6 decimal places.
func scenario(t *testing.T) *accounting.Results {
	res := synthetic.Scenario(t)
	res.Run.Markets = map[string]string{"A": "0xa"}
	if len(res.Fills) < 3 || len(res.Series) < 2 || len(res.Totals) < 2 {
		t.Fatalf("scenario: %d fills, %d series rows, %d totals", len(res.Fills), len(res.Series), len(res.Totals))
	}
	// A fee of 1 bps on 0.49 × 1.000001 has 16 decimal places.
	res.Fills[0].Fee = fixture.Dec("0.0000490000490000")
	res.Series[0].Cash = fixture.Dec("-49.000000000001")
	return res
}

// TestResultsRoundTrip writes a run's results and reads them back with
// parquet-go's reader: every fill, series row and total, exactly.
func TestResultsRoundTrip(t *testing.T) {
	res := scenario(t)
	dir := t.TempDir()
	if err := export.Results(dir, res, export.Options{RowGroupRows: 2}); err != nil {
		t.Fatal(err)
	}
	fixture.AssertDirEntries(t, dir, export.FillsFile, export.SeriesFile, export.TotalsFile)

	var fills, series, totals [][]string
	for _, f := range res.Fills {
		fills = append(fills, []string{ts(f.Time), f.TokenID, "0xa", f.OrderID, string(f.Side), f.Price.Decimal().String(), f.Size.Decimal().String(),
			f.Fee.String(), strconv.FormatBool(f.Taker), f.Reason.String(), optAmt(f.Mid, !f.Mid.IsZero())})
	}
	for _, s := range res.Series {
		series = append(series, []string{ts(s.Time), s.TokenID, "0xa", optPx(s.BestBid), optPx(s.BestAsk), optAmt(s.Mid, s.HasMid), s.Mark.String(),
			optPx(s.OurBid), optPx(s.OurAsk), s.Position.String(), s.Cash.String(), s.Fees.String(), s.PnL.String(), strconv.Itoa(s.Fills)})
	}
	for _, s := range res.Totals {
		totals = append(totals, []string{ts(s.Time), s.Cash.String(), s.Fees.String(), s.PnL.String()})
	}
	got := readParquet(t, filepath.Join(dir, export.FillsFile))
	compareRows(t, "fills", got, fills)
	if got.groups != (len(fills)+1)/2 {
		t.Errorf("fills.parquet: %d row groups for %d rows of 2", got.groups, len(fills))
	}
	compareRows(t, "series", readParquet(t, filepath.Join(dir, export.SeriesFile)), series)
	tot := readParquet(t, filepath.Join(dir, export.TotalsFile))
	compareRows(t, "totals", tot, totals)
	for k, v := range map[string]string{"mmbot.run.source": "replay", "mmbot.run.data": "rec.jsonl.gz", "mmbot.run.strategy": "bands",
		"mmbot.run.fill_mode": res.Run.Mode.String(), "mmbot.run.fees": res.Run.Fees.String(), "mmbot.run.seed": "0"} {
		if tot.kv[k] != v {
			t.Errorf("metadata %s = %q, want %q", k, tot.kv[k], v)
		}
	}
	// The exactness the amount columns are there for.
	if got.rows[0][7] != "0.000049000049" || !strings.HasPrefix(readParquet(t, filepath.Join(dir, export.SeriesFile)).rows[0][10], "-49.000000000001") {
		t.Errorf("amounts rounded: fee %s", got.rows[0][7])
	}
}

// Amounts the accounting could produce but a DECIMAL(38,18) cannot hold
// exactly fail the export; no file is left.
func TestResultsNotRepresentable(t *testing.T) {
	for _, v := range []string{"0.0000000000000000001", "100000000000000000000"} {
		res := scenario(t)
		res.Totals[1].PnL = fixture.Dec(v)
		dir := t.TempDir()
		err := export.Results(dir, res, export.Options{})
		if !errors.Is(err, export.ErrNotRepresentable) || !containsAll(err.Error(), "totals.parquet", "column pnl", "row 2") {
			t.Errorf("pnl %s: %v", v, err)
		}
		fixture.AssertDirEntries(t, dir, export.FillsFile, export.SeriesFile)
	}
}

// TestSweepRoundTrip writes a sweep's rows, a failed one and undefined
// statistics among them, and reads them back.
func TestSweepRoundTrip(t *testing.T) {
	params := []sweep.Param{{Key: "gamma", Values: []string{"0.05", "0.1"}}, {Key: "risk.max_position", Values: []string{"100", "200"}}}
	combos, err := sweep.Grid(params)
	if err != nil {
		t.Fatal(err)
	}
	res := scenario(t)
	rows := make([]sweep.Row, len(combos))
	for i, c := range combos {
		rows[i] = sweep.Row{Combo: c, Headline: accounting.HeadlineOf(res)}
	}
	rows[1].Headline.AvgWait = 1500 * time.Millisecond
	rows[2] = sweep.Row{Combo: combos[2], Err: errors.New("risk: max_position below order size")}
	rows[3].Headline.Sharpe = accounting.Ratio(math.NaN())
	rows[3].Headline.Sortino = accounting.Ratio(math.Inf(1))
	path := filepath.Join(t.TempDir(), export.SweepFile)
	if err := export.Sweep(path, []string{"gamma", "risk.max_position"}, rows, export.Options{}); err != nil {
		t.Fatal(err)
	}
	ratio := func(r accounting.Ratio) string {
		if f := float64(r); !math.IsNaN(f) && !math.IsInf(f, 0) {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
		return "null"
	}
	var want [][]string
	for _, r := range rows {
		row := append([]string{strconv.Itoa(r.Combo.Index)}, r.Combo.Values...)
		if r.Err != nil {
			for range 21 {
				row = append(row, "null")
			}
			want = append(want, append(row, r.Err.Error()))
			continue
		}
		h := r.Headline
		want = append(want, append(row, h.PnL.String(), h.Realized.String(), h.SpreadPnL.String(), h.InventoryPnL.String(), h.Fees.String(),
			h.Volume.String(), strconv.Itoa(h.Fills), ratio(h.FillRatio), strconv.FormatInt(int64(h.AvgWait), 10), h.MaxDrawdown.String(),
			ratio(h.Sharpe), ratio(h.Sortino), h.MaxAbsPos.String(), ratio(h.MeanAbsPos), h.EndPos.String(), strconv.Itoa(h.Orders),
			strconv.Itoa(h.Cancels), strconv.Itoa(h.OrdersPeak), strconv.Itoa(h.CancelsPeak), ratio(h.RewardShare), ratio(h.Markout10s), "null"))
	}
	got := readParquet(t, path)
	compareRows(t, "sweep", got, want)
	if got.names[1] != "gamma" || got.names[2] != "risk.max_position" || got.names[3] != "pnl" {
		t.Errorf("columns %q", got.names)
	}
	if got.rows[3][13] != "null" || got.rows[1][11] != "1500000000" {
		t.Errorf("sortino +Inf is %s, avg wait %s", got.rows[3][13], got.rows[1][11])
	}

	// A key named like a figure column is refused.
	if err := export.Sweep(path, []string{"pnl"}, nil, export.Options{}); err == nil || !strings.Contains(err.Error(), `"pnl"`) {
		t.Errorf("key pnl: %v", err)
	}
}
