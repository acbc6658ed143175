package ledger

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/exchange"
)

// Mark sources, as TokenSummary.MarkSource reports them.
const (
	MarkLastFill = "last fill" // the token's last fill price
	MarkMid      = "mid"       // the exchange's mid at the period's end (Options.Mids)
)

// Options shape Results.
type Options struct {
	// Interval is the sampling interval of the series and of Sharpe and
	// Sortino; zero chooses one from the period's length (Interval).
	Interval time.Duration
	// Caps are the rate caps the peak order and cancel rates are shown
	// against; zero: accounting.DefaultRateCaps.
	Caps accounting.RateCaps
	// Data names the journal in the reports (its path, and whether a copy
	// was read).
	Data string
	// Mids holds the exchange's mid of tokens at the period's end; an open
	// position whose token has one is marked at it, the others at their
	// last fill price.
	Mids map[string]decimal.Decimal
	// MarksNote is added to the reports' description of the marks (why no
	// mid was read, for example).
	MarksNote string
}

// Results books the period into accounting.Results (see the package
// documentation for how), labelled for the reports: each token as its
// market (the condition id, shortened) and outcome, tokens grouped by
// market, and the marks described.
func (j *Journal) Results(o Options) (*accounting.Results, error) {
	p := j.period
	if o.Interval <= 0 {
		o.Interval = Interval(p.To.Sub(p.From))
	}
	acc := accounting.NewAccumulator(accounting.AccumulatorConfig{Caps: o.Caps, Interval: o.Interval})
	acc.Advance(p.From)
	used := map[string]bool{}
	token := func(id string) *accounting.TokenAcc {
		used[id] = true
		return acc.Token(id)
	}
	for _, tok := range sortedKeys(j.opening) {
		op := j.opening[tok]
		token(tok).OnOpen(p.From, op.shares, op.cost, op.last, MarkLastFill)
	}
	// Merge the three streams in time order: placements, then fills, then
	// cancels at the same instant.
	pi, ci := 0, 0
	for _, f := range j.fills {
		for ; pi < len(j.placed) && !j.placed[pi].at.After(f.Time); pi++ {
			j.place(token, j.placed[pi])
		}
		for ; ci < len(j.canceled) && j.canceled[ci].at.Before(f.Time); ci++ {
			token(j.canceled[ci].token).OnCancel(j.canceled[ci].at)
		}
		price, err := exchange.FixedFromDecimal(f.Price)
		if err != nil {
			return nil, fmt.Errorf("fill %s: price: %w", f.ID, err)
		}
		size, err := exchange.FixedFromDecimal(f.Size)
		if err != nil {
			return nil, fmt.Errorf("fill %s: size: %w", f.ID, err)
		}
		t := token(f.TokenID)
		side, fee, id := f.Side, f.Fee, cmp.Or(f.OrderHash, f.ID)
		if f.Reversal { // a failed trade's fill taken back: the opposite fill at the same price
			side, fee, id = opposite(side), fee.Neg(), f.ID
		}
		t.OnFillFee(fillmodel.Fill{OrderID: id, Side: side, Price: price, Size: size, Time: f.Time}, fee)
		if !f.Reversal { // a trade that never happened marks nothing
			t.OnMark(f.Time, f.Price, MarkLastFill)
		}
	}
	for ; pi < len(j.placed); pi++ {
		j.place(token, j.placed[pi])
	}
	for ; ci < len(j.canceled); ci++ {
		token(j.canceled[ci].token).OnCancel(j.canceled[ci].at)
	}
	open, marked := 0, 0
	for _, tok := range j.Open() {
		open++
		if mid, ok := o.Mids[tok]; ok {
			token(tok).OnMark(p.To, mid, MarkMid)
			marked++
		}
	}
	res, err := acc.Finish(p.To)
	if err != nil {
		return nil, err
	}
	res.Run = accounting.RunInfo{Source: accounting.SourceJournal, Data: o.Data, Labels: map[string]string{},
		Markets: map[string]string{}, Marks: describeMarks(open, marked, o.MarksNote)}
	for id := range used {
		res.Run.Markets[id], res.Run.Labels[id] = j.names(id)
	}
	return res, nil
}

func (j *Journal) place(token func(string) *accounting.TokenAcc, po placedOrder) {
	token(po.token).OnPlace(po.at, fillmodel.VirtualOrder{Side: po.side, Price: po.price, Size: po.size})
}

// names returns a token's market name (its condition id, shortened) and its
// label (market and outcome).
func (j *Journal) names(tok string) (market, label string) {
	ti := j.tokens[tok]
	market = ShortID(ti.condition)
	if ti.condition == "" {
		market = "token " + ShortID(tok)
	}
	switch ti.outcome {
	case 0: // the outcome indexes of package strategy: YES 0, NO 1
		return market, market + " YES"
	case 1:
		return market, market + " NO"
	}
	if ti.condition == "" {
		return market, market
	}
	return market, market + " token " + ShortID(tok)
}

// describeMarks says how the report values positions.
func describeMarks(open, marked int, note string) string {
	s := "last fill price"
	if marked > 0 {
		s = fmt.Sprintf("the exchange's mid at the end (%d of %d open positions), else the last fill price", marked, open)
	}
	if note != "" {
		s += " (" + note + ")"
	}
	return s
}

// ShortID keeps the first 8 and the last 4 characters of a long id, as the
// daemon's status table does.
func ShortID(s string) string {
	if len(s) > 12 {
		return s[:8] + "…" + s[len(s)-4:]
	}
	return s
}

// Interval chooses the sampling interval of a period of length span: about
// 300 samples, rounded up to 1 s, 5 s, 10 s, 30 s, 1 min, 5 min, 15 min,
// 1 h or 6 h, and at most a day.
func Interval(span time.Duration) time.Duration {
	want := span / 300
	for _, d := range []time.Duration{time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second, time.Minute,
		5 * time.Minute, 15 * time.Minute, time.Hour, 6 * time.Hour} {
		if want <= d {
			return d
		}
	}
	return 24 * time.Hour
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func opposite(s exchange.Side) exchange.Side {
	if s == exchange.Buy {
		return exchange.Sell
	}
	return exchange.Buy
}
