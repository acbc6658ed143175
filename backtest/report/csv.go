package report

import (
	"encoding/csv"
	"io"
	"strconv"
	"time"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/exchange"
)

// WriteCSV writes the per-interval time series of r: one row per token and
// interval (in token order), and, when there is more than one token, a row
// with token "*" holding the portfolio's cash, fees and PnL. Empty cells
// mean "none" (no quote, no book side).
//
// For a run read from the order journal, which has no books, the columns
// are time, token, market, mark, position, cash, fees, pnl and fills.
func WriteCSV(w io.Writer, r *accounting.Results) error {
	if journal(r) {
		return writeJournalCSV(w, r)
	}
	cw := csv.NewWriter(w)
	header := []string{"time", "token", "best_bid", "best_ask", "mid", "our_bid", "our_ask",
		"position", "cash", "fees", "pnl", "fills"}
	if err := cw.Write(header); err != nil {
		return err
	}
	multi := len(r.Tokens) > 1
	ti := 0
	rec := make([]string, len(header))
	for i := 0; i < len(r.Series); {
		at := r.Series[i].Time
		for ; i < len(r.Series) && r.Series[i].Time.Equal(at); i++ {
			s := &r.Series[i]
			mid := ""
			if s.HasMid {
				mid = exact(s.Mid)
			}
			rec = append(rec[:0], at.UTC().Format(time.RFC3339), s.TokenID, optFixed(s.BestBid), optFixed(s.BestAsk), mid,
				optFixed(s.OurBid), optFixed(s.OurAsk), exact(s.Position), exact(s.Cash), exact(s.Fees), exact(s.PnL), strconv.Itoa(s.Fills))
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
		for ; ti < len(r.Totals) && !r.Totals[ti].Time.After(at); ti++ {
			if !multi {
				continue
			}
			t := &r.Totals[ti]
			rec = append(rec[:0], t.Time.UTC().Format(time.RFC3339), "*", "", "", "", "", "", "", exact(t.Cash), exact(t.Fees), exact(t.PnL), "")
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func optFixed(f exchange.Fixed) string {
	if f == 0 {
		return ""
	}
	return f.String()
}
