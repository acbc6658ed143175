package export_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/export"
	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/backtest/recording"
)

// BenchmarkRecordingWriter writes book snapshots of 8 levels (5 bids, 3
// asks) over 4 tokens into books.parquet: the export's bulk. It reports
// rows/s (book levels) and the file's bytes per row.
func BenchmarkRecordingWriter(b *testing.B) {
	lv := fixture.Lv(b, "0.5:100", "0.49:200.5", "0.48:300", "0.47:400.25", "0.46:500")
	const events = 20_000
	books := make([]*recording.Book, events)
	for i := range books {
		books[i] = &recording.Book{Stamp: recording.Stamp{Received: fixture.Ms(i)}, TokenID: "token-" + strconv.Itoa(i%4), Market: "0xm", Bids: lv, Asks: lv[:3], TickSize: fixture.Dec("0.01")}
	}
	b.ReportAllocs()
	var size int64
	for b.Loop() {
		dir := b.TempDir()
		w, err := export.NewRecordingWriter(dir, recording.Header{Format: recording.Format, Version: recording.Version}, export.Options{})
		if err != nil {
			b.Fatal(err)
		}
		for _, bk := range books {
			if err := w.Write(recording.BookEvent(bk)); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		st, err := os.Stat(filepath.Join(dir, export.BooksFile))
		if err != nil {
			b.Fatal(err)
		}
		size = st.Size()
	}
	rows := float64(events * 8)
	b.ReportMetric(rows*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(size)/rows, "B/row")
}

// BenchmarkResults writes a run's series.parquet (and the small fills and
// totals): 20,000 rows of 14 columns, 5 of them DECIMAL(38,18) amounts.
func BenchmarkResults(b *testing.B) {
	res := &accounting.Results{}
	for i := range 20_000 {
		d := decimal.New(int64(i)*7919, -9)
		res.Series = append(res.Series, accounting.SeriesRow{
			Time: fixture.Ms(i * 1000), TokenID: "token-" + strconv.Itoa(i%4),
			BestBid: 490_000, BestAsk: 510_000, Mid: fixture.Dec("0.5"), HasMid: true, Mark: fixture.Dec("0.5"),
			Position: fixture.Dec("10"), Cash: d.Neg(), Fees: d.Div(decimal.NewFromInt(1000)), PnL: d, Fills: i % 3,
		})
	}
	res.Start, res.End, res.Interval = fixture.Ms(0), fixture.Ms(20_000_000), time.Second
	b.ReportAllocs()
	for b.Loop() {
		if err := export.Results(b.TempDir(), res, export.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(res.Series))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
