package export

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/mmbot/mmbot/backtest/sweep"
)

// SweepFile is the file of a sweep's rows.
const SweepFile = "sweep.parquet"

// sweepFigures are the columns of sweep.parquet after the run number and
// the swept keys: the headline figures under their JSON names
// (accounting.Headline), then the error of a failed run.
var sweepFigures = []arrow.Field{
	required("pnl", amountType),
	required("realized", amountType),
	required("spread_pnl", amountType),
	required("inventory_pnl", amountType),
	required("fees", amountType),
	required("volume", priceType),
	required("fills", arrow.PrimitiveTypes.Int64),
	nullable("fill_ratio", arrow.PrimitiveTypes.Float64),
	required("avg_queue_wait_ns", arrow.PrimitiveTypes.Int64),
	required("max_drawdown", amountType),
	nullable("sharpe", arrow.PrimitiveTypes.Float64),
	nullable("sortino", arrow.PrimitiveTypes.Float64),
	required("max_abs_position", priceType),
	nullable("mean_abs_position", arrow.PrimitiveTypes.Float64),
	required("end_abs_position", priceType),
	required("orders", arrow.PrimitiveTypes.Int64),
	required("cancels", arrow.PrimitiveTypes.Int64),
	required("orders_peak_10s", arrow.PrimitiveTypes.Int64),
	required("cancels_peak_10s", arrow.PrimitiveTypes.Int64),
	nullable("reward_share", arrow.PrimitiveTypes.Float64),
	nullable("markout_10s", arrow.PrimitiveTypes.Float64),
}

// sweepFields returns the columns of sweep.parquet for the swept keys:
// "run", one string column per key (named as the key), the figures (null
// for a failed run) and "error" (null for a run that succeeded). A key
// that has the name of another column is refused.
func sweepFields(keys []string) ([]arrow.Field, error) {
	fields := []arrow.Field{required("run", arrow.PrimitiveTypes.Int64)}
	for _, k := range keys {
		fields = append(fields, required(k, arrow.BinaryTypes.String))
	}
	for _, f := range sweepFigures {
		f.Nullable = true
		fields = append(fields, f)
	}
	fields = append(fields, nullable("error", arrow.BinaryTypes.String))
	seen := map[string]bool{}
	for _, f := range fields {
		if seen[f.Name] {
			return nil, fmt.Errorf("export: sweep key %q has the name of a column of %s", f.Name, SweepFile)
		}
		seen[f.Name] = true
	}
	return fields, nil
}

// Sweep writes the rows of a sweep over keys into the file at path
// (sweep.parquet), atomically: one row per combination, in grid order.
func Sweep(path string, keys []string, rows []sweep.Row, opt Options) error {
	fields, err := sweepFields(keys)
	if err != nil {
		return err
	}
	kv := [][2]string{{"mmbot.schema_version", SchemaVersion}}
	return writeTable(path, fields, kv, opt, len(rows), func(t *table, i int) error {
		s := &rows[i]
		if len(s.Combo.Values) != len(keys) {
			return fmt.Errorf("run %d: %d values for %d keys", s.Combo.Index, len(s.Combo.Values), len(keys))
		}
		r := t.row()
		r.int(int64(s.Combo.Index))
		for _, v := range s.Combo.Values {
			r.str(v)
		}
		if s.Err != nil {
			for range sweepFigures {
				r.null()
			}
			r.str(s.Err.Error())
			return r.end()
		}
		h := &s.Headline
		r.amount(h.PnL)
		r.amount(h.Realized)
		r.amount(h.SpreadPnL)
		r.amount(h.InventoryPnL)
		r.amount(h.Fees)
		r.dec(h.Volume)
		r.int(int64(h.Fills))
		r.ratio(float64(h.FillRatio))
		r.int(int64(h.AvgWait / time.Nanosecond))
		r.amount(h.MaxDrawdown)
		r.ratio(float64(h.Sharpe))
		r.ratio(float64(h.Sortino))
		r.dec(h.MaxAbsPos)
		r.ratio(float64(h.MeanAbsPos))
		r.dec(h.EndPos)
		r.int(int64(h.Orders))
		r.int(int64(h.Cancels))
		r.int(int64(h.OrdersPeak))
		r.int(int64(h.CancelsPeak))
		r.ratio(float64(h.RewardShare))
		r.ratio(float64(h.Markout10s))
		r.null()
		return r.end()
	})
}
