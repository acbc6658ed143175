package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/sweep"
)

// sweepColumns are the figures of a sweep table, after the swept keys.
func sweepColumns() []string {
	return []string{"pnl", "realized", "spread", "inventory", "fees", "volume", "fills", "fill_ratio",
		"max_dd", "sharpe", "max_abs_pos", "mean_abs_pos", "orders", "cancels", "reward_share", "markout_10s"}
}

func headlineCells(h *accounting.Headline) []string {
	return []string{money(h.PnL), money(h.Realized), money(h.SpreadPnL), money(h.InventoryPnL), money(h.Fees),
		money(h.Volume), strconv.Itoa(h.Fills), num(float64(h.FillRatio), 4), money(h.MaxDrawdown), num(float64(h.Sharpe), 2),
		money(h.MaxAbsPos), num(float64(h.MeanAbsPos), 2), strconv.Itoa(h.Orders), strconv.Itoa(h.Cancels),
		num(float64(h.RewardShare), 4), num(float64(h.Markout10s), 5)}
}

func sweepRecord(r *sweep.Row) []string {
	rec := append([]string{strconv.Itoa(r.Combo.Index)}, r.Combo.Values...)
	if r.Err != nil {
		rec = append(rec, make([]string, len(sweepColumns()))...)
		return append(rec, r.Err.Error())
	}
	return append(append(rec, headlineCells(&r.Headline)...), "")
}

func sweepHeader(keys []string) []string {
	h := append([]string{"run"}, keys...)
	return append(append(h, sweepColumns()...), "error")
}

// WriteSweepTable writes the rows as an aligned text table, one line per
// combination.
func WriteSweepTable(w io.Writer, keys []string, rows []sweep.Row) error {
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
func WriteSweepCSV(w io.Writer, keys []string, rows []sweep.Row) error {
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
	Run      int                  `json:"run"`
	Params   map[string]string    `json:"params"`
	Headline *accounting.Headline `json:"results,omitempty"`
	Err      string               `json:"error,omitempty"`
}

// WriteSweepJSON writes the rows as a JSON array.
func WriteSweepJSON(w io.Writer, rows []sweep.Row) error {
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
