package loop

import (
	"time"

	"github.com/shopspring/decimal"
)

// Tally is the loop's running totals since it started.
type Tally struct {
	Cycles        int
	CycleErrors   int
	Placed        int // orders the venue accepted
	PlaceFailed   int // orders the venue refused (success false) or whose send failed
	Cancelled     int // cancels the venue confirmed
	CancelFailed  int
	Rejected      int // planned orders the risk checks refused
	Fills         int
	Volume        decimal.Decimal // shares filled
	Notional      decimal.Decimal // collateral traded
	RealizedPnL   decimal.Decimal
	MarkedPnL     decimal.Decimal // realized + unrealized, since the start
	LastCycleTime time.Duration
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
	BookAge     time.Duration
	Stopped     string
	Stale       bool
	// Refused is why the market's last book was refused (Config.CheckBook,
	// e.g. a tick that is not one of the exchange's): it is not quoted
	// while this is set. Empty while its books pass.
	Refused string
}

// Status is the loop's state after its last cycle.
type Status struct {
	Time       time.Time
	Markets    []MarketStatus
	LiveOrders int
	Tally      Tally
	Tripped    bool
	TripReason string
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
	Rejected  []string // reasons, one per refused order (risk reasons and "exchange")
	// BooksRefused are the reasons of the books Config.CheckBook refused in
	// the cycle, one per book (exchange.ValidationError.Reason).
	BooksRefused []string
	Status       *Status
}

// Observer hears about every cycle; the daemon turns reports into metrics.
type Observer interface {
	OnCycle(r *CycleReport)
}

type nopObserver struct{}

func (nopObserver) OnCycle(*CycleReport) {}
