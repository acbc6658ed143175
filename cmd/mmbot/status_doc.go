package main

import (
	"math"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy/loop"
)

// The status document: what GET /status on the daemon's metrics listener
// serves and `mmbot status` prints. docs/operations.md ("Status of a running
// daemon") describes every field; a change that renames or removes one, or
// changes its meaning, bumps statusSchema (adding a field does not).
//
// Money (prices, sizes, positions, PnL, collateral) is a decimal string,
// exact; rates, ratios and durations are JSON numbers; times are RFC 3339
// in UTC; a value that is not known yet is null.

// statusSchema is the version of the status document.
const statusSchema = 1

type statusDoc struct {
	SchemaVersion    int           `json:"schema_version"`
	MmbotVersion     string        `json:"mmbot_version"`
	PID              int           `json:"pid"`
	Mode             string        `json:"mode"` // live | dry_run
	Time             time.Time     `json:"time"`
	StartedAt        time.Time     `json:"started_at"`
	UptimeSeconds    float64       `json:"uptime_seconds"`
	Ready            bool          `json:"ready"`
	NotReady         string        `json:"not_ready"`
	CycleTime        *time.Time    `json:"cycle_time"`
	Cycles           int           `json:"cycles"`
	CycleErrors      int           `json:"cycle_errors"`
	LastCycleSeconds float64       `json:"last_cycle_seconds"`
	LastError        *errorDoc     `json:"last_error"`
	KillSwitch       killDoc       `json:"kill_switch"`
	Rates            ratesDoc      `json:"rates"`
	Collateral       collateralDoc `json:"collateral"`
	Totals           totalsDoc     `json:"totals"`
	Markets          []marketDoc   `json:"markets"`
}

type errorDoc struct {
	Message string    `json:"message"`
	At      time.Time `json:"at"`
}

type killDoc struct {
	Tripped   bool       `json:"tripped"`
	Reason    string     `json:"reason"`
	Detail    string     `json:"detail"`
	Since     *time.Time `json:"since"`
	LastReset *resetDoc  `json:"last_reset"`
}

type resetDoc struct {
	By            string     `json:"by"`
	ClearedReason string     `json:"cleared_reason"`
	ClearedDetail string     `json:"cleared_detail"`
	ClearedSince  *time.Time `json:"cleared_since"`
}

type ratesDoc struct {
	Orders  rateDoc `json:"orders"`
	Cancels rateDoc `json:"cancels"`
	HTTP429 int64   `json:"http_429"`
	Retries int64   `json:"retries"`
}

type rateDoc struct {
	PerSecond     float64  `json:"per_second"`
	WindowSeconds float64  `json:"window_seconds"`
	Total         uint64   `json:"total"`
	Caps          []capDoc `json:"caps"`
}

type capDoc struct {
	Bucket            string  `json:"bucket"`
	Requests          int     `json:"requests"`
	WindowSeconds     float64 `json:"window_seconds"`
	PerSecond         float64 `json:"per_second"`
	ClientPerSecond   float64 `json:"client_per_second"`
	Used              uint64  `json:"used"`
	UsedWindowSeconds float64 `json:"used_window_seconds"`
	InUseRatio        float64 `json:"in_use_ratio"`
}

type collateralDoc struct {
	InUse     string  `json:"in_use"`
	Orders    string  `json:"orders"`
	Positions string  `json:"positions"`
	Limit     *string `json:"limit,omitempty"` // only in the document's totals
}

type totalsDoc struct {
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
	// Rewards is the loop's liquidity-reward estimate over every market.
	Rewards rewardsDoc `json:"rewards"`
}

// rewardsDoc is a liquidity-reward estimate (loop.MarketRewards): the
// income since the start, per day at the last cycle's share, the share of
// the score (the mean over paying markets in the totals), and, per market,
// the reward-aware decision.
type rewardsDoc struct {
	Earned   string  `json:"earned"`
	Daily    float64 `json:"daily"`
	Share    float64 `json:"share"`
	Pays     *bool   `json:"pays,omitempty"`     // per market: the market has a reward program
	Decision string  `json:"decision,omitempty"` // per market: WithRewards' last decision
}

type marketDoc struct {
	ConditionID    string        `json:"condition_id"`
	Slug           string        `json:"slug"`
	Fair           *string       `json:"fair"`
	Bid            *string       `json:"bid"`
	Ask            *string       `json:"ask"`
	Position       positionDoc   `json:"position"`
	OpenOrders     int           `json:"open_orders"`
	Orders         []orderDoc    `json:"orders"`
	PnL            pnlDoc        `json:"pnl"`
	Collateral     collateralDoc `json:"collateral"`
	Rewards        rewardsDoc    `json:"rewards"`
	BookAgeSeconds float64       `json:"book_age_seconds"`
	Stale          bool          `json:"stale"`
	Stopped        string        `json:"stopped"`
	Refused        string        `json:"refused"`
	Limit          string        `json:"limit"` // the risk limit holding its quotes back; "" when none
	LastError      *errorDoc     `json:"last_error"`
}

type positionDoc struct {
	Yes string `json:"yes"`
	No  string `json:"no"`
	Net string `json:"net"`
}

type pnlDoc struct {
	Realized string `json:"realized"`
	Marked   string `json:"marked"`
}

type orderDoc struct {
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

// statusInput is everything a status document is built from, gathered by
// the daemon at one instant (statusSource.input).
type statusInput struct {
	Now      time.Time
	Started  time.Time
	Version  string
	PID      int
	DryRun   bool
	Ready    bool
	NotReady string
	Loop     *loop.Status // nil until the loop exists
	Kill     killState
	Buckets  []exchange.BucketSnapshot // at Now
	// Base returns the sample at the start of a window ending at Now.
	Base             func(window time.Duration) rateSample
	HTTP429, Retries int64
	CollateralLimit  decimal.Decimal // risk.max_collateral_at_risk; zero: none
}

// killState is the kill switch as the status shows it.
type killState struct {
	Tripped bool
	Trip    risk.Trip
	ResetBy string
	Cleared risk.Trip // the trip the last reset cleared
}

// Bucket names of the order endpoints' caps (exchange.BucketSnapshot.Name).
const (
	bucketPostBurst       = "post_order_burst"
	bucketPostSustained   = "post_order_sustained"
	bucketDeleteBurst     = "delete_order_burst"
	bucketDeleteSustained = "delete_order_sustained"
)

// buildStatusDoc builds the document; it is pure.
func buildStatusDoc(in *statusInput) statusDoc {
	d := statusDoc{
		SchemaVersion: statusSchema, MmbotVersion: in.Version, PID: in.PID, Mode: "live",
		Time: in.Now.UTC(), StartedAt: in.Started.UTC(), UptimeSeconds: seconds(in.Now.Sub(in.Started)),
		Ready: in.Ready, NotReady: in.NotReady, Markets: []marketDoc{},
	}
	if in.DryRun {
		d.Mode = "dry_run"
	}
	d.KillSwitch = killDocOf(in.Kill)
	d.Rates = ratesDocOf(in)
	st := in.Loop
	if st == nil {
		st = &loop.Status{}
	}
	if !st.Time.IsZero() {
		t := st.Time.UTC()
		d.CycleTime = &t
	}
	t := st.Tally
	d.Cycles, d.CycleErrors, d.LastCycleSeconds = t.Cycles, t.CycleErrors, seconds(t.LastCycleTime)
	d.LastError = errorDocOf(st.LastError, st.LastErrorAt)
	d.Totals = totalsDoc{LiveOrders: st.LiveOrders, Fills: t.Fills, Volume: t.Volume.String(), Notional: t.Notional.String(),
		RealizedPnL: t.RealizedPnL.String(), MarkedPnL: t.MarkedPnL.String(), OrdersPlaced: t.Placed, OrdersRefused: t.PlaceFailed,
		Cancels: t.Cancelled, CancelsFailed: t.CancelFailed, RiskRejections: t.Rejected,
		RiskRejectionsByReason: reasonCounts(&t.RejectedBy), HeldBackByLimit: reasonCounts(&t.HeldBack)}
	earned, daily, share := st.RewardTotals()
	d.Totals.Rewards = rewardsDoc{Earned: earned.String(), Daily: daily, Share: share}
	inUse, orders := st.AtRisk()
	d.Collateral = collateralDocOf(inUse, orders)
	if in.CollateralLimit.IsPositive() {
		s := in.CollateralLimit.String()
		d.Collateral.Limit = &s
	}
	for i := range st.Markets {
		d.Markets = append(d.Markets, marketDocOf(&st.Markets[i]))
	}
	return d
}

func marketDocOf(m *loop.MarketStatus) marketDoc {
	md := marketDoc{
		ConditionID: m.ConditionID, Slug: m.Slug,
		Position:   positionDoc{Yes: m.Position[0].String(), No: m.Position[1].String(), Net: m.Position[0].Sub(m.Position[1]).String()},
		OpenOrders: m.Open, Orders: make([]orderDoc, 0, len(m.Orders)),
		PnL:            pnlDoc{Realized: m.RealizedPnL.String(), Marked: m.MarkedPnL.String()},
		Collateral:     collateralDocOf(m.AtRisk, m.OrdersAtRisk),
		BookAgeSeconds: seconds(m.BookAge), Stale: m.Stale, Stopped: m.Stopped, Refused: m.Refused, Limit: m.Limit,
		LastError: errorDocOf(m.LastError, m.LastErrorAt),
		Rewards: rewardsDoc{Earned: m.Rewards.Earned.String(), Daily: m.Rewards.Daily, Share: m.Rewards.Share, Pays: &m.Rewards.Pays,
			Decision: m.Rewards.Decision.String()},
	}
	if m.HasFair {
		s := fairString(m.Fair)
		md.Fair = &s
	}
	md.Bid, md.Ask = nonZero(m.BestBid), nonZero(m.BestAsk)
	for _, o := range m.Orders {
		md.Orders = append(md.Orders, orderDoc{Hash: o.Hash, ExchangeID: o.ExchangeID, Outcome: o.Outcome.String(), Side: string(o.Side),
			Price: o.Price.String(), Size: o.Size.String(), Matched: o.Matched.String(), Remaining: decimal.Max(o.Size.Sub(o.Matched), decimal.Zero).String(),
			State: string(o.State), CreatedAt: o.CreatedAt.UTC()})
	}
	return md
}

func collateralDocOf(inUse, orders decimal.Decimal) collateralDoc {
	return collateralDoc{InUse: inUse.String(), Orders: orders.String(), Positions: inUse.Sub(orders).String()}
}

func killDocOf(k killState) killDoc {
	kd := killDoc{Tripped: k.Tripped}
	if k.Tripped {
		kd.Reason, kd.Detail = k.Trip.Reason.String(), k.Trip.Detail
		at := k.Trip.At.UTC()
		kd.Since = &at
	}
	if k.ResetBy != "" {
		kd.LastReset = &resetDoc{By: k.ResetBy, ClearedDetail: k.Cleared.Detail}
		if k.Cleared.Reason != 0 { // else the reset found it armed
			at := k.Cleared.At.UTC()
			kd.LastReset.ClearedReason, kd.LastReset.ClearedSince = k.Cleared.Reason.String(), &at
		}
	}
	return kd
}

// ratesDocOf reports the order and cancel rates against the caps of the
// order endpoints: for each cap, the units the client let out in its last
// window (to within the spacing of the samples), and the rate of each class
// over its burst cap's window.
func ratesDocOf(in *statusInput) ratesDoc {
	r := ratesDoc{HTTP429: in.HTTP429, Retries: in.Retries,
		Orders: rateDoc{Caps: []capDoc{}}, Cancels: rateDoc{Caps: []capDoc{}}}
	for _, b := range in.Buckets {
		var rd *rateDoc
		burst := false
		switch b.Name {
		case bucketPostBurst, bucketPostSustained:
			rd, burst = &r.Orders, b.Name == bucketPostBurst
		case bucketDeleteBurst, bucketDeleteSustained:
			rd, burst = &r.Cancels, b.Name == bucketDeleteBurst
		default:
			continue
		}
		c := capDoc{Bucket: b.Name, Requests: b.Cap.Requests, WindowSeconds: seconds(b.Cap.Window), ClientPerSecond: b.RatePerSec}
		if b.Cap.Window > 0 {
			c.PerSecond = float64(b.Cap.Requests) / b.Cap.Window.Seconds()
		}
		if b.Burst > 0 {
			c.InUseRatio = max(0, 1-b.Tokens/float64(b.Burst))
		}
		rd.Total = b.Admitted
		if in.Base != nil {
			base := in.Base(b.Cap.Window)
			was := base.orders
			if rd == &r.Cancels {
				was = base.cancels
			}
			if b.Admitted >= was {
				c.Used = b.Admitted - was
			}
			c.UsedWindowSeconds = seconds(in.Now.Sub(base.at))
		}
		if burst && c.UsedWindowSeconds > 0 {
			rd.PerSecond, rd.WindowSeconds = math.Round(float64(c.Used)/c.UsedWindowSeconds*1000)/1000, c.UsedWindowSeconds
		}
		rd.Caps = append(rd.Caps, c)
	}
	return r
}

func errorDocOf(msg string, at time.Time) *errorDoc {
	if msg == "" {
		return nil
	}
	return &errorDoc{Message: msg, At: at.UTC()}
}

// fairString is a fair value (a model estimate, float64 in the loop) as the
// 6-decimal number the loop marks positions with.
func fairString(f float64) string { return decimal.NewFromFloat(f).Round(6).String() }

func nonZero(d decimal.Decimal) *string {
	if d.IsZero() {
		return nil
	}
	s := d.String()
	return &s
}

// seconds is d in seconds, to the millisecond.
func seconds(d time.Duration) float64 {
	return float64(d.Round(time.Millisecond)) / float64(time.Second)
}
