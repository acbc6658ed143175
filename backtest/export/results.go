package export

import (
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/mmbot/mmbot/backtest/accounting"
)

// The files of a run's results.
const (
	FillsFile  = "fills.parquet"
	SeriesFile = "series.parquet"
	TotalsFile = "totals.parquet"
)

var fillsFields = []field{
	required("time", timeType),
	required("token", stringType),
	nullable("market", stringType),
	required("order_id", stringType),
	required("side", stringType),
	required("price", priceType),
	required("size", priceType),
	required("fee", amountType),
	required("taker", boolType),
	required("reason", stringType),
	nullable("mid", amountType),
}

var seriesFields = []field{
	required("time", timeType),
	required("token", stringType),
	nullable("market", stringType),
	nullable("best_bid", priceType),
	nullable("best_ask", priceType),
	nullable("mid", amountType),
	required("mark", amountType),
	nullable("our_bid", priceType),
	nullable("our_ask", priceType),
	required("position", priceType),
	required("cash", amountType),
	required("fees", amountType),
	required("pnl", amountType),
	required("fills", int64Type),
}

var totalsFields = []field{
	required("time", timeType),
	required("cash", amountType),
	required("fees", amountType),
	required("pnl", amountType),
}

// runMeta describes the run in each file's key-value metadata, as the
// reports state it: the data, the strategy, the fill mode, the queue model,
// the latencies, the fees and the seed.
func runMeta(res *accounting.Results) [][2]string {
	ri := &res.Run
	source := "replay"
	if ri.Source == accounting.SourceJournal {
		source = "journal"
	}
	return [][2]string{
		{"mmbot.schema_version", SchemaVersion},
		{"mmbot.run.source", source},
		{"mmbot.run.data", ri.Data},
		{"mmbot.run.strategy", ri.Strategy},
		{"mmbot.run.fill_mode", ri.Mode.String()},
		{"mmbot.run.queue_model", ri.Queue.String()},
		{"mmbot.run.latency", ri.Latency.String()},
		{"mmbot.run.fees", ri.Fees.String()},
		{"mmbot.run.seed", strconv.FormatUint(ri.Seed, 10)},
		{"mmbot.run.start", res.Start.UTC().Format(time.RFC3339Nano)},
		{"mmbot.run.end", res.End.UTC().Format(time.RFC3339Nano)},
		{"mmbot.run.interval", res.Interval.String()},
	}
}

// Results writes a run's fills.parquet, series.parquet and totals.parquet
// into dir, each atomically. The series holds one row per token and
// interval (series.csv's rows without the portfolio's "*" rows), the totals
// one row per interval for the portfolio.
func Results(dir string, res *accounting.Results, opt Options) error {
	kv := runMeta(res)
	market := func(token string) string { return res.Run.Markets[token] }
	err := writeTable(filepath.Join(dir, FillsFile), fillsFields, kv, opt, len(res.Fills), func(t *table, i int) error {
		f := &res.Fills[i]
		r := t.row()
		r.time(f.Time)
		r.str(f.TokenID)
		r.optStr(market(f.TokenID))
		r.str(f.OrderID)
		r.str(string(f.Side))
		r.price(f.Price)
		r.price(f.Size)
		r.amount(f.Fee)
		r.bool(f.Taker)
		r.str(f.Reason.String())
		r.optAmount(f.Mid, !f.Mid.IsZero())
		return r.end()
	})
	if err != nil {
		return err
	}
	err = writeTable(filepath.Join(dir, SeriesFile), seriesFields, kv, opt, len(res.Series), func(t *table, i int) error {
		s := &res.Series[i]
		r := t.row()
		r.time(s.Time)
		r.str(s.TokenID)
		r.optStr(market(s.TokenID))
		r.optPrice(s.BestBid)
		r.optPrice(s.BestAsk)
		r.optAmount(s.Mid, s.HasMid)
		r.amount(s.Mark)
		r.optPrice(s.OurBid)
		r.optPrice(s.OurAsk)
		r.dec(s.Position)
		r.amount(s.Cash)
		r.amount(s.Fees)
		r.amount(s.PnL)
		r.int(int64(s.Fills))
		return r.end()
	})
	if err != nil {
		return err
	}
	return writeTable(filepath.Join(dir, TotalsFile), totalsFields, kv, opt, len(res.Totals), func(t *table, i int) error {
		s := &res.Totals[i]
		r := t.row()
		r.time(s.Time)
		r.amount(s.Cash)
		r.amount(s.Fees)
		r.amount(s.PnL)
		return r.end()
	})
}

// writeTable writes n rows through add into a new file at path.
func writeTable(path string, fields []field, kv [][2]string, opt Options, n int, add func(t *table, i int) error) error {
	t, err := newTable(path, fields, kv, opt)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if err := add(t, i); err != nil {
			t.abort()
			return fmt.Errorf("row %d: %w", i+1, err)
		}
	}
	return t.commit()
}
