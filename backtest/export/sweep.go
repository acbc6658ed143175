package export

import (
	"fmt"
	"time"

	"github.com/mmbot/mmbot/backtest/sweep"
)

// SweepFile is the file of a sweep's rows.
const SweepFile = "sweep.parquet"

// sweepFigures are the columns of sweep.parquet after the run number and
// the swept keys: the headline figures under their JSON names
// (accounting.Headline), then the error of a failed run.
var sweepFigures = []field{
	required("pnl", amountType),
	required("realized", amountType),
	required("spread_pnl", amountType),
	required("inventory_pnl", amountType),
	required("fees", amountType),
	required("volume", priceType),
	required("fills", int64Type),
	nullable("fill_ratio", doubleType),
	required("avg_queue_wait_ns", int64Type),
	required("max_drawdown", amountType),
	nullable("sharpe", doubleType),
	nullable("sortino", doubleType),
	required("max_abs_position", priceType),
	nullable("mean_abs_position", doubleType),
	required("end_abs_position", priceType),
	required("orders", int64Type),
	required("cancels", int64Type),
	required("orders_peak_10s", int64Type),
	required("cancels_peak_10s", int64Type),
	nullable("reward_share", doubleType),
	nullable("markout_10s", doubleType),
}

// sweepFields returns the columns of sweep.parquet for the swept keys:
// "run", one string column per key (named as the key), the figures (null
// for a failed run) and "error" (null for a run that succeeded). A key
// that has the name of another column is refused.
func sweepFields(keys []string) ([]field, error) {
	fields := []field{required("run", int64Type)}
	for _, k := range keys {
		fields = append(fields, required(k, stringType))
	}
	for _, f := range sweepFigures {
		f.nullable = true
		fields = append(fields, f)
	}
	fields = append(fields, nullable("error", stringType))
	seen := map[string]bool{}
	for _, f := range fields {
		if seen[f.name] {
			return nil, fmt.Errorf("export: sweep key %q has the name of a column of %s", f.name, SweepFile)
		}
		seen[f.name] = true
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
