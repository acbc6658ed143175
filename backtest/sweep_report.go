package backtest

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/shopspring/decimal"
)

// Ratio is a statistic that may be undefined (NaN) or infinite; it is
// written to JSON as a number, or null when it is not finite.
type Ratio float64

// MarshalJSON implements json.Marshaler.
func (r Ratio) MarshalJSON() ([]byte, error) {
	f := float64(r)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// Headline is the handful of figures that compare runs: one row of a
// sweep, and the JSON form of a run.
type Headline struct {
	PnL          decimal.Decimal `json:"pnl"`
	Realized     decimal.Decimal `json:"realized"`
	SpreadPnL    decimal.Decimal `json:"spread_pnl"`
	InventoryPnL decimal.Decimal `json:"inventory_pnl"`
	Fees         decimal.Decimal `json:"fees"`
	Volume       decimal.Decimal `json:"volume"`
	Fills        int             `json:"fills"`
	FillRatio    Ratio           `json:"fill_ratio"`
	AvgWait      time.Duration   `json:"avg_queue_wait_ns"`
	MaxDrawdown  decimal.Decimal `json:"max_drawdown"`
	Sharpe       Ratio           `json:"sharpe"`
	Sortino      Ratio           `json:"sortino"`
	MaxAbsPos    decimal.Decimal `json:"max_abs_position"`  // the largest of any token
	MeanAbsPos   Ratio           `json:"mean_abs_position"` // summed over tokens
	EndPos       decimal.Decimal `json:"end_abs_position"`  // Σ |position| at the end
	Orders       int             `json:"orders"`
	Cancels      int             `json:"cancels"`
	OrdersPeak   int             `json:"orders_peak_10s"`
	CancelsPeak  int             `json:"cancels_peak_10s"`
	RewardShare  Ratio           `json:"reward_share"`
	Markout10s   Ratio           `json:"markout_10s"`
}

// HeadlineOf extracts the headline figures of r.
func HeadlineOf(r *Results) Headline {
	s := &r.Total
	h := Headline{PnL: s.PnL, Realized: s.Realized, SpreadPnL: s.SpreadPnL, InventoryPnL: s.InventoryPnL, Fees: s.Fees,
		Volume: s.Volume, Fills: s.Fills, FillRatio: Ratio(s.FillRatio()), AvgWait: s.AvgWait, MaxDrawdown: r.MaxDrawdown,
		Sharpe: Ratio(r.Sharpe), Sortino: Ratio(r.Sortino), Orders: s.OrdersSent, Cancels: s.CancelsSent,
		RewardShare: Ratio(r.RewardShare()), Markout10s: Ratio(math.NaN())}
	var mean float64
	for _, t := range r.Tokens {
		if t.MaxAbsPos.GreaterThan(h.MaxAbsPos) {
			h.MaxAbsPos = t.MaxAbsPos
		}
		mean += t.MeanAbsPos
		h.EndPos = h.EndPos.Add(t.Position.Abs())
	}
	h.MeanAbsPos = Ratio(mean)
	for _, u := range r.Rates {
		if u.Window == 10*time.Second {
			if u.Name == "orders" {
				h.OrdersPeak = u.Peak
			} else {
				h.CancelsPeak = u.Peak
			}
		}
	}
	for _, m := range r.Markouts {
		if m.Horizon == 10*time.Second && m.Count > 0 {
			h.Markout10s = Ratio(m.Mean)
		}
	}
	return h
}

// sweepColumns are the figures of a sweep table, after the swept keys.
func sweepColumns() []string {
	return []string{"pnl", "realized", "spread", "inventory", "fees", "volume", "fills", "fill_ratio",
		"max_dd", "sharpe", "max_abs_pos", "mean_abs_pos", "orders", "cancels", "reward_share", "markout_10s"}
}

func (h *Headline) cells() []string {
	return []string{money(h.PnL), money(h.Realized), money(h.SpreadPnL), money(h.InventoryPnL), money(h.Fees),
		money(h.Volume), strconv.Itoa(h.Fills), num(float64(h.FillRatio), 4), money(h.MaxDrawdown), num(float64(h.Sharpe), 2),
		money(h.MaxAbsPos), num(float64(h.MeanAbsPos), 2), strconv.Itoa(h.Orders), strconv.Itoa(h.Cancels),
		num(float64(h.RewardShare), 4), num(float64(h.Markout10s), 5)}
}

func sweepRecord(r *SweepRow) []string {
	rec := append([]string{strconv.Itoa(r.Combo.Index)}, r.Combo.Values...)
	if r.Err != nil {
		rec = append(rec, make([]string, len(sweepColumns()))...)
		return append(rec, r.Err.Error())
	}
	return append(append(rec, r.Headline.cells()...), "")
}

func sweepHeader(keys []string) []string {
	h := append([]string{"run"}, keys...)
	return append(append(h, sweepColumns()...), "error")
}

// WriteSweepTable writes the rows as an aligned text table, one line per
// combination.
func WriteSweepTable(w io.Writer, keys []string, rows []SweepRow) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	line := func(cells []string) {
		for i, c := range cells {
			if i > 0 {
				fmt.Fprint(tw, "\t")
			}
			fmt.Fprint(tw, c)
		}
		fmt.Fprint(tw, "\n")
	}
	line(sweepHeader(keys))
	for i := range rows {
		line(sweepRecord(&rows[i]))
	}
	return tw.Flush()
}

// WriteSweepCSV writes the rows as CSV with a header line.
func WriteSweepCSV(w io.Writer, keys []string, rows []SweepRow) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(sweepHeader(keys)); err != nil {
		return err
	}
	for i := range rows {
		if err := cw.Write(sweepRecord(&rows[i])); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// sweepJSONRow is one row of WriteSweepJSON.
type sweepJSONRow struct {
	Run      int               `json:"run"`
	Params   map[string]string `json:"params"`
	Headline *Headline         `json:"results,omitempty"`
	Err      string            `json:"error,omitempty"`
}

// WriteSweepJSON writes the rows as a JSON array.
func WriteSweepJSON(w io.Writer, rows []SweepRow) error {
	out := make([]sweepJSONRow, len(rows))
	for i := range rows {
		r := &rows[i]
		out[i] = sweepJSONRow{Run: r.Combo.Index, Params: map[string]string{}}
		for j, k := range r.Combo.Keys {
			out[i].Params[k] = r.Combo.Values[j]
		}
		if r.Err != nil {
			out[i].Err = r.Err.Error()
		} else {
			out[i].Headline = &r.Headline
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
