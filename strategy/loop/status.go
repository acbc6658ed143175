package loop

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy"
)

// Tally is the loop's running totals since it started.
type Tally struct {
	Cycles       int
	CycleErrors  int
	Placed       int // orders the venue accepted
	PlaceFailed  int // orders the venue refused (success false) or whose send failed
	Cancelled    int // cancels the venue confirmed
	CancelFailed int
	Rejected     int // planned orders the risk checks refused
	// RejectedBy splits Rejected by the check that refused the order,
	// indexed by risk.Reason.
	RejectedBy [risk.NumReasons]int
	// HeldBack counts, per limit (indexed by risk.Reason), the quotes the
	// planner shrank or left out to stay within a size-dependent limit
	// (strategy.PassResult.Limited), once per cycle they were held back.
	// They are not rejections: nothing was refused.
	HeldBack      [risk.NumReasons]int
	Fills         int
	Volume        decimal.Decimal // shares filled
	Notional      decimal.Decimal // collateral traded
	RealizedPnL   decimal.Decimal
	MarkedPnL     decimal.Decimal // realized + unrealized, since the start
	LastCycleTime time.Duration
	// Reversed counts the fills taken back because their trade failed at
	// settlement, ReversedVolume their shares (settle.go).
	Reversed       int
	ReversedVolume decimal.Decimal
	// AutoClears counts the kill-switch trips that cleared by themselves
	// once the exchange was back (risk.KillConfig.AutoClearAfter).
	AutoClears int
}

// MarketStatus is one market's line of the live status.
type MarketStatus struct {
	ConditionID string
	Slug        string
	Fair        float64
	HasFair     bool
	BestBid     decimal.Decimal // our best YES-space bid (zero when none)
	BestAsk     decimal.Decimal // our best YES-space ask (zero when none)
	Position    [2]decimal.Decimal
	Open        int
	// Orders are the market's tracked orders (every one not final, intents
	// included), sorted by hash. The slice is never modified once
	// published: copies of a Status share it.
	Orders []OrderStatus
	// RealizedPnL and MarkedPnL are this market's share of the session's
	// PnL (Tally.RealizedPnL, Tally.MarkedPnL sum them over every token,
	// including tokens of markets no longer configured).
	RealizedPnL decimal.Decimal
	MarkedPnL   decimal.Decimal
	// AtRisk is the collateral the market holds, as the risk limits count
	// it (risk.MarketTotals): the remaining notional of its open BUY orders
	// plus its unpaired positions marked at fair value (at 1 a share while
	// there is none); a YES+NO pair redeems for 1 whatever the outcome and
	// counts for nothing. OrdersAtRisk is the part of it held by the BUY
	// orders; AtRisk − OrdersAtRisk is the part held by the positions.
	AtRisk       decimal.Decimal
	OrdersAtRisk decimal.Decimal
	// Limit names the limit (a risk.Reason) that held the market's quotes
	// back in its last pass: they were shrunk or left out to stay within
	// it. Empty when none did.
	Limit   string
	BookAge time.Duration
	Stopped string
	Stale   bool
	// Refused is why the market's last book was refused (Config.CheckBook,
	// e.g. a tick that is not one of the exchange's): it is not quoted
	// while this is set. Empty while its books pass.
	Refused string
	// LastError is the last error met on this market (a refused order, a
	// failed placement batch, cancel or order read, a signing or planning
	// failure, its book gone, a failed read of its books in a cycle that
	// went on) and LastErrorAt when; empty and zero when none since the
	// start. It stays until a newer error replaces it.
	LastError   string
	LastErrorAt time.Time
	// Rewards is the market's liquidity-reward estimate and decision.
	Rewards MarketRewards
}

// OrderStatus is one tracked order in a MarketStatus.
type OrderStatus struct {
	Hash       string
	ExchangeID string // empty until the exchange named it
	TokenID    string
	Outcome    strategy.Outcome
	Side       exchange.Side
	Price      decimal.Decimal
	Size       decimal.Decimal // the order's original size
	Matched    decimal.Decimal // filled so far; Size − Matched remains
	State      JournalState
	CreatedAt  time.Time
}

// Status is the loop's state after its last cycle.
type Status struct {
	Time       time.Time
	Markets    []MarketStatus
	LiveOrders int
	Tally      Tally
	Tripped    bool
	TripReason string
	// LastError is the error of the last cycle that failed as a whole (its
	// books could not be read, the journal refused a write), LastErrorAt
	// when; it stays until a newer one replaces it.
	LastError   string
	LastErrorAt time.Time
	// PendingTrades is how many trades of ours are not final yet (MATCHED,
	// MINED or RETRYING): their fills are booked as pending.
	PendingTrades int
}

// AtRisk returns the collateral in use over every market: the sum of the
// markets' AtRisk.
func (s *Status) AtRisk() (total, orders decimal.Decimal) {
	for i := range s.Markets {
		total = total.Add(s.Markets[i].AtRisk)
		orders = orders.Add(s.Markets[i].OrdersAtRisk)
	}
	return total, orders
}

// Status returns a copy of the status after the last cycle.
func (l *Loop) Status() Status {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.status
	s.Markets = append([]MarketStatus(nil), s.Markets...)
	return s
}

// CycleReport is what an Observer hears after each cycle.
type CycleReport struct {
	Start     time.Time
	Duration  time.Duration
	Err       error
	Placed    int
	Cancelled int
	Fills     int
	Filled    []Fill   // the fills counted in Fills, in the order they were booked
	Rejected  []string // reasons, one per refused order (risk reasons and "exchange")
	// BooksRefused are the reasons of the books Config.CheckBook refused in
	// the cycle, one per book (exchange.ValidationError.Reason).
	BooksRefused []string
	// Markouts are the markouts of our fills that came due in the cycle, at
	// each of strategy.MarkoutHorizons, measured against their market's
	// fair value at the cycle's snapshot (so a horizon is rounded up to the
	// first cycle at or after it).
	Markouts []strategy.Markout
	// Reversed are the trades that failed at settlement in the cycle: each
	// one's fill was taken back.
	Reversed []TradeUpdate
	Status   *Status
}

// Fill is one fill of one of our orders as an observer sees it (the daemon
// measures markouts from it).
type Fill struct {
	ConditionID string
	Outcome     strategy.Outcome
	Side        exchange.Side
	Price, Size decimal.Decimal
	Time        time.Time // when the loop found it: the loop reads orders, so at or after the trade
}

// Observer hears about every cycle; the daemon turns reports into metrics.
type Observer interface {
	OnCycle(r *CycleReport)
}

type nopObserver struct{}

func (nopObserver) OnCycle(*CycleReport) {}
