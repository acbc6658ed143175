package accounting

import (
	"errors"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/shopspring/decimal"
)

// markoutHorizons are the horizons of the markout statistics.
var markoutHorizons = [3]time.Duration{time.Second, 10 * time.Second, time.Minute}

// AccumulatorConfig configures an Accumulator.
type AccumulatorConfig struct {
	Run      RunInfo       // copied into the Results; Run.Fees prices the fills
	Caps     RateCaps      // zero value: DefaultRateCaps()
	Interval time.Duration // sampling interval; 0 means one minute
}

// Accumulator turns the stream of a run (books, our quotes, orders and
// cancels sent, fills, reward samples) into Results. Feed it in time order;
// a time earlier than the latest seen counts as the latest. Its per-event
// methods (TokenAcc.OnBook, OnQuote) do not allocate in the steady state.
//
// Call order for one market event: the Matcher's fills first (OnFill, so
// that each fill is measured against the mid before the event), then the
// event's book (OnBook).
type Accumulator struct {
	cfg      AccumulatorConfig
	tokens   map[string]*TokenAcc
	list     []*TokenAcc
	started  bool
	start    time.Time
	now      time.Time
	next     time.Time // next sample time
	orders   [2]windowPeak
	cancels  [2]windowPeak
	reward   fillmodel.RewardScore
	samples  int
	series   []SeriesRow
	totals   []TotalRow
	lastRows int // series rows of the latest sample
	fills    []FillRecord
	finished bool
}

// NewAccumulator returns an empty Accumulator.
func NewAccumulator(cfg AccumulatorConfig) *Accumulator {
	if cfg.Interval <= 0 {
		cfg.Interval = time.Minute
	}
	if cfg.Caps == (RateCaps{}) {
		cfg.Caps = DefaultRateCaps()
	}
	return &Accumulator{
		cfg:     cfg,
		tokens:  map[string]*TokenAcc{},
		orders:  [2]windowPeak{{width: 10 * time.Second}, {width: 10 * time.Minute}},
		cancels: [2]windowPeak{{width: 10 * time.Second}, {width: 10 * time.Minute}},
	}
}

// Token returns the accumulator of one token, creating it on first use.
// Keep the handle: its methods avoid a map lookup per event.
func (a *Accumulator) Token(id string) *TokenAcc {
	if t, ok := a.tokens[id]; ok {
		return t
	}
	t := &TokenAcc{acc: a, id: id}
	for i := range t.pending {
		t.pending[i].h = markoutHorizons[i]
	}
	a.tokens[id] = t
	a.list = append(a.list, t)
	slices.SortFunc(a.list, func(x, y *TokenAcc) int { return strings.Compare(x.id, y.id) })
	return t
}

// OnReward adds samples liquidity-reward samples of one market
// (fillmodel.ScoreMarket) taken at time t: the scores and what we earned.
func (a *Accumulator) OnReward(t time.Time, s fillmodel.RewardScore, samples int) {
	a.advance(t)
	a.reward.Ours += s.Ours
	a.reward.Total += s.Total
	a.reward.Earned += s.Earned
	a.samples += samples
}

// Advance moves the run's clock to t without an input, taking the samples
// due. The first input starts the run: a run that starts before its first
// input (a period read from the order journal) calls Advance with its start
// first.
func (a *Accumulator) Advance(t time.Time) { a.advance(t) }

// advance moves the clock to t, first closing every sample interval that
// ends at or before t (the samples see the state before t's input).
func (a *Accumulator) advance(t time.Time) time.Time {
	if !a.started {
		a.started = true
		a.start, a.now = t, t
		a.next = t.Truncate(a.cfg.Interval).Add(a.cfg.Interval)
		return t
	}
	if t.Before(a.now) {
		t = a.now
	}
	for !t.Before(a.next) {
		a.sample(a.next)
		a.next = a.next.Add(a.cfg.Interval)
	}
	a.now = t
	return t
}

// sample records the state at time at.
func (a *Accumulator) sample(at time.Time) {
	row := TotalRow{Time: at}
	a.lastRows = len(a.list)
	for _, t := range a.list {
		t.prevAbsPosSum, t.prevAbsPosN = t.absPosSum, t.absPosN
		pnl := t.pnl()
		a.series = append(a.series, SeriesRow{Time: at, TokenID: t.id, BestBid: t.bid, BestAsk: t.ask,
			Mid: t.bookMark(), HasMid: t.hasMid || t.resolved, Mark: t.mark(), OurBid: t.ourBid, OurAsk: t.ourAsk,
			Position: t.pos, Cash: t.cash, Fees: t.sum.Fees, PnL: pnl, Fills: t.sum.Fills})
		row.Cash = row.Cash.Add(t.cash)
		row.Fees = row.Fees.Add(t.sum.Fees)
		row.PnL = row.PnL.Add(pnl)
		ap := t.pos.Abs()
		t.absPosSum += ap.InexactFloat64()
		t.absPosN++
		if ap.GreaterThan(t.maxAbsPos) {
			t.maxAbsPos = ap
		}
	}
	a.totals = append(a.totals, row)
}

// resampleLast takes the latest sample again, at the same time, undoing
// what the first one recorded: a sample sees the state before the inputs
// at its instant, but the final one must see the end of the run.
func (a *Accumulator) resampleLast() {
	at := a.totals[len(a.totals)-1].Time
	a.totals = a.totals[:len(a.totals)-1]
	a.series = a.series[:len(a.series)-a.lastRows]
	for _, t := range a.list {
		// A token created after the sample has zero in both. The largest
		// |position| stays: the first sample saw a state that existed.
		t.absPosSum, t.absPosN = t.prevAbsPosSum, t.prevAbsPosN
	}
	a.sample(at)
}

// ErrFinished is returned by Finish when called twice.
var ErrFinished = errors.New("accumulator already finished")

// Finish closes the run at end (samples up to end are taken; markouts whose
// horizon passes end are dropped) and returns the Results.
func (a *Accumulator) Finish(end time.Time) (*Results, error) {
	if a.finished {
		return nil, ErrFinished
	}
	a.finished = true
	end = a.advance(end)
	if n := len(a.totals); n > 0 && a.totals[n-1].Time.Equal(end) {
		// The run ends on a sampling instant: the inputs at end came after
		// that sample was taken, and the last row, the drawdown and the
		// inventory path must include them.
		a.resampleLast()
	}
	r := &Results{Run: a.cfg.Run, Start: a.start, End: end, Interval: a.cfg.Interval,
		Series: a.series, Totals: a.totals, Fills: a.fills, Reward: a.reward, Samples: a.samples}
	var values [len(markoutHorizons)][]float64
	var weights [len(markoutHorizons)][]float64
	var mids [len(markoutHorizons)][]float64
	for _, t := range a.list {
		for i := range t.pending {
			if t.hasMid || t.resolved {
				t.pending[i].resolve(end, t.mark2(), false)
			}
		}
		ts := t.summary()
		r.Tokens = append(r.Tokens, ts)
		addSummary(&r.Total, &ts.Summary)
		for i := range t.pending {
			values[i] = append(values[i], t.pending[i].values...)
			mids[i] = append(mids[i], t.pending[i].mids...)
			weights[i] = append(weights[i], t.pending[i].sizes...)
		}
	}
	r.Total.OrdersSent = a.orders[0].total
	r.Total.CancelsSent = a.cancels[0].total
	finishSummary(&r.Total)
	for i, h := range markoutHorizons {
		r.Markouts = append(r.Markouts, markoutStats(h, values[i], weights[i]))
		r.MidMarkouts = append(r.MidMarkouts, markoutStats(h, mids[i], weights[i]))
	}
	caps := a.cfg.Caps
	r.Rates = []RateUse{
		{Name: "orders", Window: a.orders[0].width, Peak: a.orders[0].peak, Cap: caps.Orders10s, Total: a.orders[0].total},
		{Name: "orders", Window: a.orders[1].width, Peak: a.orders[1].peak, Cap: caps.Orders10m, Total: a.orders[1].total},
		{Name: "cancels", Window: a.cancels[0].width, Peak: a.cancels[0].peak, Cap: caps.Cancels10s, Total: a.cancels[0].total},
		{Name: "cancels", Window: a.cancels[1].width, Peak: a.cancels[1].peak, Cap: caps.Cancels10m, Total: a.cancels[1].total},
	}
	// Per-interval PnL changes, from zero at the start to the final PnL.
	pnls := make([]decimal.Decimal, 0, len(a.totals)+2)
	pnls = append(pnls, decimal.Zero)
	for _, row := range a.totals {
		pnls = append(pnls, row.PnL)
	}
	if len(a.totals) == 0 || a.totals[len(a.totals)-1].Time.Before(end) {
		pnls = append(pnls, r.Total.PnL)
	}
	r.MaxDrawdown = maxDrawdown(pnls)
	// One change per sampled interval, the first from zero at the start:
	// a run of n intervals gives n changes covering its whole length.
	changes := make([]float64, 0, len(a.totals))
	prev := decimal.Zero
	for _, row := range a.totals {
		changes = append(changes, row.PnL.Sub(prev).InexactFloat64())
		prev = row.PnL
	}
	r.RatioSamples = len(changes)
	r.Sharpe, r.Sortino = math.NaN(), math.NaN()
	if !r.RatiosTooFew() {
		ann := annualisation(a.cfg.Interval)
		r.Sharpe, r.Sortino = sharpe(changes, ann), sortino(changes, ann)
	}
	return r, nil
}

func addSummary(dst, s *Summary) {
	dst.PnL = dst.PnL.Add(s.PnL)
	dst.Realized = dst.Realized.Add(s.Realized)
	dst.SpreadPnL = dst.SpreadPnL.Add(s.SpreadPnL)
	dst.Fees = dst.Fees.Add(s.Fees)
	dst.Cash = dst.Cash.Add(s.Cash)
	dst.Volume = dst.Volume.Add(s.Volume)
	dst.Notional = dst.Notional.Add(s.Notional)
	dst.Fills += s.Fills
	dst.TakerFills += s.TakerFills
	dst.PlacedSize = dst.PlacedSize.Add(s.PlacedSize)
	dst.FilledSize = dst.FilledSize.Add(s.FilledSize)
	// AvgWait is combined as a weighted mean.
	n := dst.WaitSamples + s.WaitSamples
	if n > 0 {
		dst.AvgWait = (dst.AvgWait*time.Duration(dst.WaitSamples) + s.AvgWait*time.Duration(s.WaitSamples)) / time.Duration(n)
	}
	dst.WaitSamples = n
}

// finishSummary derives the dependent figures.
func finishSummary(s *Summary) {
	s.Unrealized = s.PnL.Sub(s.Realized)
	s.InventoryPnL = s.PnL.Add(s.Fees).Sub(s.SpreadPnL)
}

func markoutStats(h time.Duration, v, w []float64) MarkoutStats {
	st := MarkoutStats{Horizon: h, Count: len(v), Values: v, Mean: mean(v), Median: median(v)}
	var sw, sx float64
	for i := range v {
		sx += v[i] * w[i]
		sw += w[i]
	}
	st.SizeWeight = math.NaN()
	if sw > 0 {
		st.SizeWeight = sx / sw
	}
	return st
}
