package status

import "time"

// The status document: what GET /status on the daemon's metrics listener
// serves and `mmbot status` prints. docs/operations.md ("Status of a running
// daemon") describes every field; a change that renames or removes one, or
// changes its meaning, bumps Schema (adding a field does not).
//
// Money (prices, sizes, positions, PnL, collateral) is a decimal string,
// exact; rates, ratios and durations are JSON numbers; times are RFC 3339
// in UTC; a value that is not known yet is null.

// Schema is the version of the status document (Status.SchemaVersion).
const Schema = 1

// Status is the whole document.
type Status struct {
	SchemaVersion    int        `json:"schema_version"`
	MmbotVersion     string     `json:"mmbot_version"`
	PID              int        `json:"pid"`
	Mode             string     `json:"mode"` // live | dry_run
	Time             time.Time  `json:"time"`
	StartedAt        time.Time  `json:"started_at"`
	UptimeSeconds    float64    `json:"uptime_seconds"`
	Ready            bool       `json:"ready"`
	NotReady         string     `json:"not_ready"`
	CycleTime        *time.Time `json:"cycle_time"`
	Cycles           int        `json:"cycles"`
	CycleErrors      int        `json:"cycle_errors"`
	LastCycleSeconds float64    `json:"last_cycle_seconds"`
	LastError        *Error     `json:"last_error"`
	KillSwitch       KillSwitch `json:"kill_switch"`
	Rates            Rates      `json:"rates"`
	Collateral       Collateral `json:"collateral"`
	Totals           Totals     `json:"totals"`
	Markets          []Market   `json:"markets"`
}

// Error is a cycle's (or a market's) last error.
type Error struct {
	Message string    `json:"message"`
	At      time.Time `json:"at"`
}

// KillSwitch is the kill switch: tripped or armed, and its last reset.
type KillSwitch struct {
	Tripped   bool       `json:"tripped"`
	Reason    string     `json:"reason"`
	Detail    string     `json:"detail"`
	Since     *time.Time `json:"since"`
	LastReset *Reset     `json:"last_reset"`
	// AutoClears counts the trips that cleared by themselves once the
	// exchange was back (risk.auto_clear_after).
	AutoClears int `json:"auto_clears"`
}

// Reset is the last reset of the kill switch and the trip it cleared.
type Reset struct {
	By            string     `json:"by"`
	ClearedReason string     `json:"cleared_reason"`
	ClearedDetail string     `json:"cleared_detail"`
	ClearedSince  *time.Time `json:"cleared_since"`
}

// Rates are the order and cancel rates against their caps, and the
// throttled and retried requests.
type Rates struct {
	Orders  Rate  `json:"orders"`
	Cancels Rate  `json:"cancels"`
	HTTP429 int64 `json:"http_429"`
	Retries int64 `json:"retries"`
}

// Rate is one class of requests (orders or cancels) against its caps.
type Rate struct {
	PerSecond     float64 `json:"per_second"`
	WindowSeconds float64 `json:"window_seconds"`
	Total         uint64  `json:"total"`
	Caps          []Cap   `json:"caps"`
}

// Cap is one rate cap of an order endpoint and how much of it is used.
type Cap struct {
	Bucket            string  `json:"bucket"`
	Requests          int     `json:"requests"`
	WindowSeconds     float64 `json:"window_seconds"`
	PerSecond         float64 `json:"per_second"`
	ClientPerSecond   float64 `json:"client_per_second"`
	Used              uint64  `json:"used"`
	UsedWindowSeconds float64 `json:"used_window_seconds"`
	InUseRatio        float64 `json:"in_use_ratio"`
}

// Collateral is the collateral in use: by open BUY orders and by positions.
type Collateral struct {
	InUse     string  `json:"in_use"`
	Orders    string  `json:"orders"`
	Positions string  `json:"positions"`
	Limit     *string `json:"limit,omitempty"` // only in the document's totals
}

// Totals are the session's counts and PnL over every market.
type Totals struct {
	LiveOrders     int    `json:"live_orders"`
	Fills          int    `json:"fills"`
	Volume         string `json:"volume"`
	Notional       string `json:"notional"`
	RealizedPnL    string `json:"realized_pnl"`
	MarkedPnL      string `json:"marked_pnl"`
	OrdersPlaced   int    `json:"orders_placed"`
	OrdersRefused  int    `json:"orders_refused"`
	Cancels        int    `json:"cancels"`
	CancelsFailed  int    `json:"cancels_failed"`
	RiskRejections int    `json:"risk_rejections"`
	// RiskRejectionsByReason splits RiskRejections by the check that
	// refused the order (risk reason names); HeldBackByLimit counts the
	// quotes the planner shrank or left out to stay within a limit, once
	// per cycle. Reasons with no count are left out.
	RiskRejectionsByReason map[string]int `json:"risk_rejections_by_reason"`
	HeldBackByLimit        map[string]int `json:"held_back_by_limit"`
	// FillsReversed counts the fills taken back because their trade failed
	// at settlement; TradesPending the trades not final yet.
	FillsReversed int `json:"fills_reversed"`
	TradesPending int `json:"trades_pending"`
	// Rewards is the loop's liquidity-reward estimate over every market.
	Rewards Rewards `json:"rewards"`
}

// Rewards is a liquidity-reward estimate (loop.MarketRewards): the
// income since the start, per day at the last cycle's share, the share of
// the score (the mean over paying markets in the totals), and, per market,
// the reward-aware decision.
type Rewards struct {
	Earned   string  `json:"earned"`
	Daily    float64 `json:"daily"`
	Share    float64 `json:"share"`
	Pays     *bool   `json:"pays,omitempty"`     // per market: the market has a reward program
	Decision string  `json:"decision,omitempty"` // per market: WithRewards' last decision
}

// Market is one quoted market.
type Market struct {
	ConditionID    string     `json:"condition_id"`
	Slug           string     `json:"slug"`
	Fair           *string    `json:"fair"`
	Bid            *string    `json:"bid"`
	Ask            *string    `json:"ask"`
	Position       Position   `json:"position"`
	OpenOrders     int        `json:"open_orders"`
	Orders         []Order    `json:"orders"`
	PnL            PnL        `json:"pnl"`
	Collateral     Collateral `json:"collateral"`
	Rewards        Rewards    `json:"rewards"`
	BookAgeSeconds float64    `json:"book_age_seconds"`
	Stale          bool       `json:"stale"`
	Stopped        string     `json:"stopped"`
	Refused        string     `json:"refused"`
	Limit          string     `json:"limit"` // the risk limit holding its quotes back; "" when none
	LastError      *Error     `json:"last_error"`
}

// Position is a market's holding of each outcome, and YES minus NO.
type Position struct {
	Yes string `json:"yes"`
	No  string `json:"no"`
	Net string `json:"net"`
}

// PnL is a market's realized and marked profit and loss.
type PnL struct {
	Realized string `json:"realized"`
	Marked   string `json:"marked"`
}

// Order is one open order of a market.
type Order struct {
	Hash       string    `json:"hash"`
	ExchangeID string    `json:"exchange_id"`
	Outcome    string    `json:"outcome"`
	Side       string    `json:"side"`
	Price      string    `json:"price"`
	Size       string    `json:"size"`
	Matched    string    `json:"matched"`
	Remaining  string    `json:"remaining"`
	State      string    `json:"state"`
	CreatedAt  time.Time `json:"created_at"`
}
