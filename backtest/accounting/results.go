package accounting

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/exchange"
)

// Source says where a run's fills come from; reports show what each source
// can measure.
type Source uint8

const (
	// SourceReplay: a backtest or paper run, the fill model's fills against
	// recorded books (mids, markouts, queue waits, reward samples).
	SourceReplay Source = iota
	// SourceJournal: live fills read back from the order journal (package
	// ledger). There are no books: positions are valued with OnMark (Marks
	// says how), and the figures measured against the mid (spread and
	// inventory PnL, markouts, reward share) and queue waits are not
	// available.
	SourceJournal
)

// RunInfo describes the run for the reports: every report of a replay
// states the fill mode and the latency model, every report of a journal
// how positions are marked.
type RunInfo struct {
	Source   Source
	Data     string // the recording replayed, or the journal read
	Strategy string // the strategy and its parameters, as the caller describes them
	Mode     fillmodel.Mode
	Queue    fillmodel.QueueModel
	Latency  fillmodel.Latency
	Fees     fillmodel.Fees
	Seed     uint64
	// Labels names tokens for people (e.g. "will-x-happen YES"); reports
	// fall back to the token id. The CSV always carries the id.
	Labels map[string]string
	// Markets names each token's market; tokens with the same name are one
	// market, which reports subtotal. Nil: no market subtotals.
	Markets map[string]string
	// Questions holds each market's question, by market name (the values of
	// Markets), where it is known; reports head a market with it.
	Questions map[string]string
	// Marks says how positions are valued when there are no books (a
	// journal: "last fill price", "exchange mid at ..."); reports show it.
	Marks string
}

// Results is the outcome of a run, produced by Accumulator.Finish. Every
// list is in a deterministic order (time, then token id).
type Results struct {
	Run        RunInfo
	Start, End time.Time
	Interval   time.Duration // the sampling interval of Series and of the Sharpe ratio

	Total  Summary        // the whole portfolio
	Tokens []TokenSummary // per token, by id

	Sharpe  float64 // annualised, of per-interval PnL changes (NaN when undefined or RatiosTooFew)
	Sortino float64 // annualised (NaN when undefined or RatiosTooFew, +Inf without losses)
	// RatioSamples is the number of per-interval PnL changes behind Sharpe
	// and Sortino (each Interval long).
	RatioSamples int
	MaxDrawdown  decimal.Decimal

	Markouts []MarkoutStats // at 1 s, 10 s and 60 s: the realized spread, side × (mid later − fill price)
	// MidMarkouts are the mid-to-mid markouts at the same horizons: side ×
	// (mid later − mid at the fill), the adverse selection without the
	// half spread earned.
	MidMarkouts []MarkoutStats
	Rates       []RateUse // orders and cancels sent against each cap
	// Reward is the liquidity-reward score summed over the samples of
	// every market, and Reward.Earned our pro-rata part of their pools
	// (collateral, not in PnL: see RewardEarned).
	Reward fillmodel.RewardScore
	// RewardsByMarket, for a run read from the order journal, is the
	// daemon's liquidity-reward estimate by market over the whole hours of
	// the period (the journal's reward records); Reward.Earned is its sum.
	RewardsByMarket map[string]decimal.Decimal
	Samples         int // reward samples taken (a market's sample each)

	Series []SeriesRow // per interval and token
	Totals []TotalRow  // per interval, the portfolio
	Fills  []FillRecord
}

// The least data Sharpe and Sortino are computed from: at least
// MinRatioSamples per-interval PnL changes covering at least MinRatioSpan.
// Below 30 samples the estimate's standard error (about 1/√n per interval)
// is larger than any ratio worth reading; below an hour a market maker's
// PnL is mostly the bid-ask bounce of its marks, and annualising it (×√525600
// for one-minute samples, ×√31536000 for one-second ones) turns minutes of
// noise into ratios in the thousands.
const (
	MinRatioSamples = 30
	MinRatioSpan    = time.Hour
)

// RatiosTooFew reports whether the run has too few samples for Sharpe and
// Sortino (they are NaN then); see MinRatioSamples.
func (r *Results) RatiosTooFew() bool {
	return r.RatioSamples < MinRatioSamples || time.Duration(r.RatioSamples)*r.Interval < MinRatioSpan
}

// RewardEarned is the liquidity rewards we earned, in collateral: our
// pro-rata part of each sampled market's pool. PnL does not include it.
func (r *Results) RewardEarned() decimal.Decimal { return r.Reward.Earned.Decimal() }

// RewardShare is our share of the liquidity-reward score (0 without samples).
func (r *Results) RewardShare() float64 {
	if r.Reward.Total <= 0 {
		return 0
	}
	return r.Reward.Ours / r.Reward.Total
}

// Summary holds the money metrics of the portfolio or of one token. All PnL
// figures are in collateral units.
type Summary struct {
	PnL          decimal.Decimal // marked: cash + position × mark (fees included)
	Realized     decimal.Decimal // average-cost realized PnL, net of fees
	Unrealized   decimal.Decimal // PnL − Realized
	SpreadPnL    decimal.Decimal // Σ size × edge to the mid at the fill (before fees)
	InventoryPnL decimal.Decimal // PnL + Fees − SpreadPnL: what price moves did to the inventory
	Fees         decimal.Decimal // paid (negative: rebates received)
	Cash         decimal.Decimal
	Volume       decimal.Decimal // shares filled
	Notional     decimal.Decimal // collateral traded
	Fills        int
	TakerFills   int
	PlacedSize   decimal.Decimal // shares placed (orders sent)
	FilledSize   decimal.Decimal
	OrdersSent   int
	CancelsSent  int
	AvgWait      time.Duration // from active to first fill, over orders that filled as maker
	WaitSamples  int
}

// FillRatio is filled size / placed size (0 when nothing was placed).
func (s *Summary) FillRatio() float64 {
	if !s.PlacedSize.IsPositive() {
		return 0
	}
	f, _ := s.FilledSize.Div(s.PlacedSize).Float64()
	return f
}

// TokenSummary adds the inventory path of one token.
type TokenSummary struct {
	TokenID string
	Summary
	Position     decimal.Decimal // at the end
	MaxAbsPos    decimal.Decimal // largest |position| at a sample or fill
	MeanAbsPos   float64         // mean |position| over the samples
	LastMid      decimal.Decimal // the mark at the end (the payout once resolved)
	MarkSource   string          // what LastMid is: "mid", "payout", an OnMark source, or "" (never marked)
	Resolved     bool
	MidlessFills int // fills with no mid known (not in SpreadPnL or markouts)
}

// MarkoutStats summarises the markouts at one horizon: for each fill,
// side × (mid at fill time + horizon − fill price), in price units, positive
// when the market moved our way.
type MarkoutStats struct {
	Horizon    time.Duration
	Count      int
	Mean       float64
	Median     float64
	SizeWeight float64 // size-weighted mean
	Values     []float64
}

// SeriesRow is one token at the end of one interval.
type SeriesRow struct {
	Time             time.Time
	TokenID          string
	BestBid, BestAsk exchange.Fixed  // 0 when the side is empty
	Mid              decimal.Decimal // the book's mid (the payout once resolved)
	HasMid           bool
	Mark             decimal.Decimal // the price the position is valued at (Mid, or an OnMark price)
	OurBid, OurAsk   exchange.Fixed  // our quotes as last reported; 0 for none
	Position         decimal.Decimal
	Cash             decimal.Decimal
	Fees             decimal.Decimal // cumulative
	PnL              decimal.Decimal
	Fills            int // cumulative
}

// TotalRow is the portfolio at the end of one interval.
type TotalRow struct {
	Time time.Time
	Cash decimal.Decimal
	Fees decimal.Decimal
	PnL  decimal.Decimal
}

// FillRecord is one fill as kept for the reports.
type FillRecord struct {
	Time    time.Time
	TokenID string
	OrderID string
	Side    exchange.Side
	Price   exchange.Fixed
	Size    exchange.Fixed
	Fee     decimal.Decimal // charged (negative: a rebate)
	Taker   bool
	Reason  fillmodel.FillReason
	Mid     decimal.Decimal // at the fill; zero when unknown
}

// Label returns the token's label, or its id when it has none.
func (r RunInfo) Label(token string) string {
	if l, ok := r.Labels[token]; ok && l != "" {
		return l
	}
	return token
}
