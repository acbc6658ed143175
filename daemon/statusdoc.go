package daemon

import (
	"math"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/daemon/status"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/risk"
	"github.com/mmbot/mmbot/strategy/loop"
)

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
func buildStatusDoc(in *statusInput) status.Status {
	d := status.Status{
		SchemaVersion: status.Schema, MmbotVersion: in.Version, PID: in.PID, Mode: "live",
		Time: in.Now.UTC(), StartedAt: in.Started.UTC(), UptimeSeconds: seconds(in.Now.Sub(in.Started)),
		Ready: in.Ready, NotReady: in.NotReady, Markets: []status.Market{},
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
	d.Totals = status.Totals{LiveOrders: st.LiveOrders, Fills: t.Fills, Volume: t.Volume.String(), Notional: t.Notional.String(),
		RealizedPnL: t.RealizedPnL.String(), MarkedPnL: t.MarkedPnL.String(), OrdersPlaced: t.Placed, OrdersRefused: t.PlaceFailed,
		Cancels: t.Cancelled, CancelsFailed: t.CancelFailed, RiskRejections: t.Rejected,
		RiskRejectionsByReason: reasonCounts(&t.RejectedBy), HeldBackByLimit: reasonCounts(&t.HeldBack),
		FillsReversed: t.Reversed, TradesPending: st.PendingTrades}
	d.KillSwitch.AutoClears = t.AutoClears
	earned, daily, share := st.RewardTotals()
	d.Totals.Rewards = status.Rewards{Earned: earned.String(), Daily: daily, Share: share}
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

func marketDocOf(m *loop.MarketStatus) status.Market {
	md := status.Market{
		ConditionID: m.ConditionID, Slug: m.Slug,
		Position:   status.Position{Yes: m.Position[0].String(), No: m.Position[1].String(), Net: m.Position[0].Sub(m.Position[1]).String()},
		OpenOrders: m.Open, Orders: make([]status.Order, 0, len(m.Orders)),
		PnL:            status.PnL{Realized: m.RealizedPnL.String(), Marked: m.MarkedPnL.String()},
		Collateral:     collateralDocOf(m.AtRisk, m.OrdersAtRisk),
		BookAgeSeconds: seconds(m.BookAge), Stale: m.Stale, Stopped: m.Stopped, Refused: m.Refused, Limit: m.Limit,
		LastError: errorDocOf(m.LastError, m.LastErrorAt),
		Rewards: status.Rewards{Earned: m.Rewards.Earned.String(), Daily: m.Rewards.Daily, Share: m.Rewards.Share, Pays: &m.Rewards.Pays,
			Decision: m.Rewards.Decision.String()},
	}
	if m.HasFair {
		s := fairString(m.Fair)
		md.Fair = &s
	}
	md.Bid, md.Ask = nonZero(m.BestBid), nonZero(m.BestAsk)
	for _, o := range m.Orders {
		md.Orders = append(md.Orders, status.Order{Hash: o.Hash, ExchangeID: o.ExchangeID, Outcome: o.Outcome.String(), Side: string(o.Side),
			Price: o.Price.String(), Size: o.Size.String(), Matched: o.Matched.String(), Remaining: decimal.Max(o.Size.Sub(o.Matched), decimal.Zero).String(),
			State: string(o.State), CreatedAt: o.CreatedAt.UTC()})
	}
	return md
}

func collateralDocOf(inUse, orders decimal.Decimal) status.Collateral {
	return status.Collateral{InUse: inUse.String(), Orders: orders.String(), Positions: inUse.Sub(orders).String()}
}

func killDocOf(k killState) status.KillSwitch {
	kd := status.KillSwitch{Tripped: k.Tripped}
	if k.Tripped {
		kd.Reason, kd.Detail = k.Trip.Reason.String(), k.Trip.Detail
		at := k.Trip.At.UTC()
		kd.Since = &at
	}
	if k.ResetBy != "" {
		kd.LastReset = &status.Reset{By: k.ResetBy, ClearedDetail: k.Cleared.Detail}
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
func ratesDocOf(in *statusInput) status.Rates {
	r := status.Rates{HTTP429: in.HTTP429, Retries: in.Retries,
		Orders: status.Rate{Caps: []status.Cap{}}, Cancels: status.Rate{Caps: []status.Cap{}}}
	for _, b := range in.Buckets {
		var rd *status.Rate
		burst := false
		switch b.Name {
		case bucketPostBurst, bucketPostSustained:
			rd, burst = &r.Orders, b.Name == bucketPostBurst
		case bucketDeleteBurst, bucketDeleteSustained:
			rd, burst = &r.Cancels, b.Name == bucketDeleteBurst
		default:
			continue
		}
		c := status.Cap{Bucket: b.Name, Requests: b.Cap.Requests, WindowSeconds: seconds(b.Cap.Window), ClientPerSecond: b.RatePerSec}
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

func errorDocOf(msg string, at time.Time) *status.Error {
	if msg == "" {
		return nil
	}
	return &status.Error{Message: msg, At: at.UTC()}
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
