package report

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/accounting"
)

// The reports of a run read from the order journal (RunInfo.Source =
// SourceJournal, package ledger): the journal has no books, so they show
// the marks instead of mids and quotes, and leave out what needs a mid.

// unmeasured says what a journal report leaves out, and why.
const unmeasured = "Spread and inventory PnL, markouts, queue waits and the reward share are not shown: " +
	"they are measured against the book's mid, and the order journal holds no books. " +
	"Liquidity rewards earned are the daemon's own estimate (the exchange publishes no earnings), " +
	"which it writes to the journal by the hour: every hour that overlaps the period counts whole."

func journal(r *accounting.Results) bool { return r.Run.Source == accounting.SourceJournal }

// journalRunLines are the lines that name what was read.
func journalRunLines(r *accounting.Results) [][2]string {
	return [][2]string{
		{"journal", orNone(r.Run.Data)},
		{"period", r.Start.UTC().Format(time.RFC3339) + " to " + r.End.UTC().Format(time.RFC3339) +
			" (" + r.End.Sub(r.Start).Round(time.Second).String() + ")"}, // a period ending now is not on a second
		{"marks", orNone(r.Run.Marks)},
		{"fees", "as the journal recorded them"},
	}
}

// journalSummaryLines are the headline figures a journal gives.
func journalSummaryLines(r *accounting.Results) [][2]string {
	s := &r.Total
	return [][2]string{
		{"PnL (marked)", money(s.PnL)},
		{"  realized", money(s.Realized)},
		{"  unrealized", money(s.Unrealized)},
		{"  fees", money(s.Fees)},
		{"volume", money(s.Volume) + " shares, " + money(s.Notional) + " notional"},
		{"fills", strconv.Itoa(s.Fills)},
		{"orders sent / canceled", fmt.Sprintf("%d / %d", s.OrdersSent, s.CancelsSent)},
		{"fill ratio", pct(s.FillRatio()) + " (" + money(s.FilledSize) + " of " + money(s.PlacedSize) + ")"},
		{"max drawdown", money(r.MaxDrawdown)},
		{"Sharpe (annualised)", ratioLine(r, r.Sharpe)},
		{"Sortino (annualised)", ratioLine(r, r.Sortino)},
		{"rewards earned", money(r.RewardEarned()) + " (the daemon's estimate, whole hours; not in PnL)"},
	}
}

// market is the tokens of one market (RunInfo.Markets) and their sum.
type market struct {
	name   string
	tokens []*accounting.TokenSummary
	sum    accounting.Summary
}

// markets groups r's tokens by market, in the order of the market names;
// within a market YES comes first, then NO, then the others by label. A
// token without a market is a market of its own, named by its label.
func markets(r *accounting.Results) []market {
	var out []market
	index := map[string]int{}
	for i := range r.Tokens {
		t := &r.Tokens[i]
		name := r.Run.Markets[t.TokenID]
		if name == "" {
			name = r.Run.Label(t.TokenID)
		}
		k, ok := index[name]
		if !ok {
			k = len(out)
			index[name] = k
			out = append(out, market{name: name})
		}
		m := &out[k]
		m.tokens = append(m.tokens, t)
		m.sum.Fills += t.Fills
		m.sum.Volume = m.sum.Volume.Add(t.Volume)
		m.sum.Notional = m.sum.Notional.Add(t.Notional)
		m.sum.Fees = m.sum.Fees.Add(t.Fees)
		m.sum.Realized = m.sum.Realized.Add(t.Realized)
		m.sum.Unrealized = m.sum.Unrealized.Add(t.Unrealized)
		m.sum.PnL = m.sum.PnL.Add(t.PnL)
		m.sum.SpreadPnL = m.sum.SpreadPnL.Add(t.SpreadPnL)
	}
	slices.SortFunc(out, func(a, b market) int { return strings.Compare(a.name, b.name) })
	for _, m := range out {
		slices.SortStableFunc(m.tokens, func(a, b *accounting.TokenSummary) int {
			oa, ob := outcome(r, a.TokenID), outcome(r, b.TokenID)
			return cmp.Or(cmp.Compare(outcomeRank(oa), outcomeRank(ob)), strings.Compare(oa, ob))
		})
	}
	return out
}

// outcome is a token's label without its market's name: "YES", "NO".
func outcome(r *accounting.Results, token string) string {
	label := r.Run.Label(token)
	if m := r.Run.Markets[token]; m != "" {
		if rest, ok := strings.CutPrefix(label, m+" "); ok {
			return rest
		}
	}
	return label
}

func outcomeRank(o string) int {
	switch o {
	case "YES":
		return 0
	case "NO":
		return 1
	}
	return 2
}

// tableRow is one line of the per-market table: a token, a market's
// subtotal (when the market has several tokens) or the total.
type tableRow struct {
	market, outcome, token string
	fills                  int
	volume, notional, fees decimal.Decimal
	position, mark         string // "" on subtotal and total rows
	markedBy               string
	realized, unrealized   decimal.Decimal
	pnl                    decimal.Decimal
}

// tableRows are the rows of the per-market table of r.
func tableRows(r *accounting.Results) []tableRow {
	var rows []tableRow
	for _, m := range markets(r) {
		for _, t := range m.tokens {
			rows = append(rows, tableRow{market: m.name, outcome: outcome(r, t.TokenID), token: t.TokenID, fills: t.Fills,
				volume: t.Volume, notional: t.Notional, fees: t.Fees, position: money(t.Position), mark: markOf(t), markedBy: t.MarkSource,
				realized: t.Realized, unrealized: t.Unrealized, pnl: t.PnL})
		}
		if len(m.tokens) > 1 {
			rows = append(rows, sumRow(m.name, "all", &m.sum))
		}
	}
	return append(rows, sumRow("total", "", &r.Total))
}

func sumRow(name, outcome string, s *accounting.Summary) tableRow {
	return tableRow{market: name, outcome: outcome, fills: s.Fills, volume: s.Volume, notional: s.Notional, fees: s.Fees,
		realized: s.Realized, unrealized: s.Unrealized, pnl: s.PnL}
}

// markOf is a token's mark, or "" when it was never marked.
func markOf(t *accounting.TokenSummary) string {
	if t.MarkSource == "" {
		return ""
	}
	return money(t.LastMid)
}

var tableHeader = []string{"market", "outcome", "fills", "volume", "notional", "fees", "position", "mark", "marked by",
	"realized", "unrealized", "PnL"}

// cells are the row's cells under tableHeader, "-" for none.
func (row *tableRow) cells() []string {
	return []string{textLabel(row.market), orNone(row.outcome), strconv.Itoa(row.fills), money(row.volume), money(row.notional),
		money(row.fees), orNone(row.position), orNone(row.mark), orNone(row.markedBy), money(row.realized),
		money(row.unrealized), money(row.pnl)}
}

// writeJournalSummary is WriteSummary for a journal.
func writeJournalSummary(w io.Writer, r *accounting.Results) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	p := func(format string, a ...any) { fmt.Fprintf(tw, format, a...) }
	p("mmbot statement\n\n")
	for _, l := range journalRunLines(r) {
		p("%s\t%s\n", l[0], l[1])
	}
	p("\n")
	for _, l := range journalSummaryLines(r) {
		p("%s\t%s\n", l[0], l[1])
	}
	p("\n%s\n", strings.Join(tableHeader, "\t"))
	rows := tableRows(r)
	for i := range rows {
		p("%s\n", strings.Join(rows[i].cells(), "\t"))
	}
	p("\nrate caps (most sent in any window, against the cap)\n")
	for _, u := range r.Rates {
		p("%s/%s\t%d of %d\t%s\n", u.Name, accounting.WindowLabel(u.Window), u.Peak, u.Cap, pct(u.Fraction()))
	}
	p("\n%s\n", unmeasured)
	return tw.Flush()
}

// WriteTableCSV writes the per-market table of r: one row per token, a row
// per market with several tokens (outcome "all") and a total row (market
// "total"), with the token id and the figures unrounded. Empty cells mean
// none: a subtotal has no position or mark.
func WriteTableCSV(w io.Writer, r *accounting.Results) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"market", "outcome", "token", "fills", "volume", "notional", "fees", "position", "mark",
		"marked_by", "realized", "unrealized", "pnl"}); err != nil {
		return err
	}
	for _, row := range tableRows(r) {
		if err := cw.Write([]string{row.market, row.outcome, row.token, strconv.Itoa(row.fills), row.volume.String(),
			row.notional.String(), row.fees.String(), row.position, row.mark, row.markedBy, row.realized.String(),
			row.unrealized.String(), row.pnl.String()}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteFillsCSV writes r's fills, oldest first: time, token, its label,
// order, side, price, size, fee.
func WriteFillsCSV(w io.Writer, r *accounting.Results) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"time", "token", "label", "order", "side", "price", "size", "fee"}); err != nil {
		return err
	}
	for _, f := range r.Fills {
		if err := cw.Write([]string{f.Time.UTC().Format(time.RFC3339Nano), f.TokenID, r.Run.Label(f.TokenID), f.OrderID,
			string(f.Side), f.Price.String(), f.Size.String(), f.Fee.String()}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeJournalCSV is WriteCSV for a journal: per interval and token the
// mark, the position, cash, fees, PnL and fills so far, and with more than
// one token a "*" row for the portfolio.
func writeJournalCSV(w io.Writer, r *accounting.Results) error {
	cw := csv.NewWriter(w)
	header := []string{"time", "token", "market", "mark", "position", "cash", "fees", "pnl", "fills"}
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
			rec = append(rec[:0], at.UTC().Format(time.RFC3339), s.TokenID, r.Run.Markets[s.TokenID], optMoney(s.Mark),
				money(s.Position), money(s.Cash), money(s.Fees), money(s.PnL), strconv.Itoa(s.Fills))
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
		for ; ti < len(r.Totals) && !r.Totals[ti].Time.After(at); ti++ {
			if !multi {
				continue
			}
			t := &r.Totals[ti]
			rec = append(rec[:0], t.Time.UTC().Format(time.RFC3339), "*", "", "", "", money(t.Cash), money(t.Fees), money(t.PnL), "")
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func optMoney(d decimal.Decimal) string {
	if d.IsZero() {
		return ""
	}
	return money(d)
}

// journalJSON is the JSON form of a journal's run (WriteJSON).
type journalJSON struct {
	Source  string              `json:"source"`
	Journal string              `json:"journal"`
	Start   time.Time           `json:"start"`
	End     time.Time           `json:"end"`
	Marks   string              `json:"marks"`
	Results journalTotalsJSON   `json:"results"`
	Markets []journalMarketJSON `json:"markets"`
	Tokens  []journalTokenJSON  `json:"tokens"`
	Rates   []rateJSON          `json:"rate_caps"`
}

type journalTotalsJSON struct {
	PnL         decimal.Decimal  `json:"pnl"`
	Realized    decimal.Decimal  `json:"realized"`
	Unrealized  decimal.Decimal  `json:"unrealized"`
	Fees        decimal.Decimal  `json:"fees"`
	Volume      decimal.Decimal  `json:"volume"`
	Notional    decimal.Decimal  `json:"notional"`
	Fills       int              `json:"fills"`
	Orders      int              `json:"orders"`
	Canceled    int              `json:"canceled"`
	FillRatio   accounting.Ratio `json:"fill_ratio"`
	MaxDrawdown decimal.Decimal  `json:"max_drawdown"`
	Sharpe      accounting.Ratio `json:"sharpe"`
	Sortino     accounting.Ratio `json:"sortino"`
	// Rewards is the daemon's liquidity-reward estimate over the hours
	// that overlap the period, whole (not in PnL).
	Rewards decimal.Decimal `json:"rewards_earned"`
	// The samples behind Sharpe and Sortino, as in accounting.Headline.
	RatioSamples  int           `json:"ratio_samples"`
	RatioInterval time.Duration `json:"ratio_interval_ns"`
}

type journalMarketJSON struct {
	Market     string          `json:"market"`
	Fills      int             `json:"fills"`
	Volume     decimal.Decimal `json:"volume"`
	Notional   decimal.Decimal `json:"notional"`
	Fees       decimal.Decimal `json:"fees"`
	Realized   decimal.Decimal `json:"realized"`
	Unrealized decimal.Decimal `json:"unrealized"`
	PnL        decimal.Decimal `json:"pnl"`
	Rewards    decimal.Decimal `json:"rewards_earned"`
}

type journalTokenJSON struct {
	Token      string          `json:"token"`
	Market     string          `json:"market"`
	Outcome    string          `json:"outcome"`
	Fills      int             `json:"fills"`
	Volume     decimal.Decimal `json:"volume"`
	Notional   decimal.Decimal `json:"notional"`
	Fees       decimal.Decimal `json:"fees"`
	Position   decimal.Decimal `json:"position"`
	Mark       decimal.Decimal `json:"mark"`
	MarkedBy   string          `json:"marked_by"`
	Realized   decimal.Decimal `json:"realized"`
	Unrealized decimal.Decimal `json:"unrealized"`
	PnL        decimal.Decimal `json:"pnl"`
}

// writeJournalJSON is WriteJSON for a journal.
func writeJournalJSON(w io.Writer, r *accounting.Results) error {
	s := &r.Total
	out := journalJSON{Source: "journal", Journal: r.Run.Data, Start: r.Start.UTC(), End: r.End.UTC(), Marks: r.Run.Marks,
		Results: journalTotalsJSON{PnL: s.PnL, Realized: s.Realized, Unrealized: s.Unrealized, Fees: s.Fees, Volume: s.Volume,
			Notional: s.Notional, Fills: s.Fills, Orders: s.OrdersSent, Canceled: s.CancelsSent, FillRatio: accounting.Ratio(s.FillRatio()),
			MaxDrawdown: r.MaxDrawdown, Sharpe: accounting.Ratio(r.Sharpe), Sortino: accounting.Ratio(r.Sortino),
			Rewards: r.RewardEarned(), RatioSamples: r.RatioSamples, RatioInterval: r.Interval},
		Markets: []journalMarketJSON{}, Tokens: []journalTokenJSON{}, Rates: ratesJSON(r)}
	for _, m := range markets(r) {
		out.Markets = append(out.Markets, journalMarketJSON{Market: m.name, Fills: m.sum.Fills, Volume: m.sum.Volume,
			Notional: m.sum.Notional, Fees: m.sum.Fees, Realized: m.sum.Realized, Unrealized: m.sum.Unrealized, PnL: m.sum.PnL,
			Rewards: r.RewardsByMarket[m.name].Add(decimal.Zero)})
		for _, t := range m.tokens {
			out.Tokens = append(out.Tokens, journalTokenJSON{Token: t.TokenID, Market: m.name, Outcome: outcome(r, t.TokenID),
				Fills: t.Fills, Volume: t.Volume, Notional: t.Notional, Fees: t.Fees, Position: t.Position, Mark: t.LastMid,
				MarkedBy: t.MarkSource, Realized: t.Realized, Unrealized: t.Unrealized, PnL: t.PnL})
		}
	}
	return encodeJSON(w, out)
}
