package loop

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/risk"
)

// GuardConfig configures a Guard. Zero values take the defaults named.
type GuardConfig struct {
	// Period is how often the guard looks (default 1s).
	Period time.Duration
	// MaxCycleGap: when no cycle has completed without error for longer than
	// this, the loop is blind (risk.TripStaleLoop). 0 turns the check off.
	MaxCycleGap time.Duration
	// MaxBookAge: when live orders rest on a book older than this, and no
	// cycle has judged that book since it became this old (a working cycle
	// cancels such orders itself) nor in the last two cycle periods, the
	// loop is blind (risk.TripStaleQuotes). 0 takes the loop's MaxBookAge;
	// negative turns the check off.
	MaxBookAge time.Duration
	// RequestTimeout bounds each of the guard's own requests (default 2s).
	RequestTimeout time.Duration
	// Concurrency is how many of its cancels may be in flight at once
	// (default 8).
	Concurrency int
	// Observe, when set, hears about every look, on the guard's goroutine
	// (the daemon fails /readyz and counts kill-switch trips there).
	Observe func(GuardReport)
	// OnBlind, when set, hears the reason as soon as a look finds the loop
	// blind, before that look's cancels are sent (the daemon fails /readyz
	// there, so that it is never ready while orders are being pulled).
	OnBlind func(reason risk.TripReason, detail string)
}

// GuardReport is what one look of the guard found and did.
type GuardReport struct {
	At        time.Time
	Reason    risk.TripReason // why the loop is blind; 0 when it is not
	Detail    string
	Started   bool // the loop was fine at the look before: the one log line saying why was written now
	Tripped   bool // this look tripped the kill switch
	Cancelled int  // orders this look found cancelled or otherwise final at the exchange
	Left      int  // orders that may still be live after this look (while blind)
}

// Guard watches the loop from its own goroutine and cancels its orders
// when the loop is blind: no cycle has completed for GuardConfig.MaxCycleGap,
// or live orders rest on books older than the book-age limit that no cycle
// has judged since. The quoting loop protects against stale books only
// while its cycles complete; a request that hangs, or a rate-limit wait,
// stops the cycle and that protection with it. The guard then trips the
// kill switch with its own reason (risk.TripStaleLoop, risk.TripStaleQuotes),
// logs one line saying why, and cancels every order the loop may have live,
// concurrently and each with its own short timeout, through the same Venue
// but never behind the loop's requests. It goes on cancelling, every
// period, what is not yet final while the loop stays blind. It writes no
// journal: the orders it found final are read back by the loop's next
// cycle (or Shutdown), which journals them with any fills.
//
// Build it with NewGuard once the loop is built, and run it next to Run,
// after Start and until Run returns (then Shutdown cancels what is left).
// A backtest runs none: its clock cannot be waited on from two goroutines.
type Guard struct {
	l     *Loop
	cfg   GuardConfig
	blind bool                 // the last look found the loop blind (Run's goroutine only)
	left  int                  // orders left after the last look that cancelled
	tried map[string]time.Time // when the guard last sent a cancel of an order, by hash
}

// NewGuard returns the guard of l. The loop's clock must be able to time
// (the system clock, or a fake with AfterFunc), and its Venue must be safe
// for concurrent use.
func NewGuard(l *Loop, cfg GuardConfig) (*Guard, error) {
	if l == nil {
		return nil, errors.New("loop: NewGuard needs a loop")
	}
	if !canTime(l.clock) {
		return nil, errors.New("loop: the guard needs a clock that can time (the system clock, or one with AfterFunc); a backtest's clock cannot")
	}
	switch {
	case cfg.Period < 0, cfg.MaxCycleGap < 0, cfg.RequestTimeout < 0, cfg.Concurrency < 0:
		return nil, fmt.Errorf("loop: guard: negative setting in %+v", cfg)
	}
	if cfg.Period == 0 {
		cfg.Period = time.Second
	}
	if cfg.MaxBookAge == 0 {
		cfg.MaxBookAge = l.cfg.MaxBookAge
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = 2 * time.Second
	}
	if cfg.Concurrency == 0 {
		cfg.Concurrency = 8
	}
	return &Guard{l: l, cfg: cfg, tried: map[string]time.Time{}}, nil
}

// Config returns the guard's configuration, defaults filled in.
func (g *Guard) Config() GuardConfig { return g.cfg }

// Run looks every Period (on the loop's clock, on a fixed schedule) until
// ctx ends, then returns nil.
func (g *Guard) Run(ctx context.Context) error {
	clock := g.l.clock
	next := clock.Now().Add(g.cfg.Period)
	for {
		if err := clock.Sleep(ctx, next.Sub(clock.Now())); err != nil {
			return nil
		}
		now := clock.Now()
		rep := g.look(ctx, now)
		for !next.After(now) {
			next = next.Add(g.cfg.Period)
		}
		if ctx.Err() != nil {
			return nil
		}
		if g.cfg.Observe != nil {
			g.cfg.Observe(rep)
		}
	}
}

// look is one look at now.
func (g *Guard) look(ctx context.Context, now time.Time) GuardReport {
	v := g.l.view.snapshot()
	rep := GuardReport{At: now}
	rep.Reason, rep.Detail = g.judge(&v, now)
	log := g.l.log
	if rep.Reason == 0 {
		if g.blind {
			g.blind, g.left = false, 0
			log.Warn().Msg("guard: the loop completes cycles again (the kill switch stays tripped until an operator resets it, or until it clears by itself once the exchange has answered normally for risk.auto_clear_after)")
		}
		return rep
	}
	var todo []viewOrderCopy
	for _, o := range v.orders {
		if !o.settled {
			todo = append(todo, o)
		}
	}
	if !g.blind {
		g.blind, rep.Started = true, true
		log.Error().Str("reason", rep.Reason.String()).Str("detail", rep.Detail).Int("orders", len(todo)).
			Msg("guard: the loop is blind: tripping the kill switch and cancelling every live order")
	}
	if k := g.l.cfg.Kill; k != nil {
		rep.Tripped = k.Trip(rep.Reason, rep.Detail, now)
	}
	if g.cfg.OnBlind != nil {
		g.cfg.OnBlind(rep.Reason, rep.Detail)
	}
	rep.Cancelled, rep.Left = g.cancel(ctx, todo, now)
	if rep.Cancelled > 0 || rep.Left != g.left {
		log.Warn().Str("reason", rep.Reason.String()).Int("cancelled", rep.Cancelled).Int("left", rep.Left).
			Msg("guard: cancelled orders of the blind loop")
	}
	g.left = rep.Left
	return rep
}

// judge says whether the loop is blind at now, and why.
func (g *Guard) judge(v *viewCopy, now time.Time) (risk.TripReason, string) {
	if m := g.cfg.MaxCycleGap; m > 0 && !v.done.IsZero() {
		if gap := now.Sub(v.done); gap > m {
			return risk.TripStaleLoop, fmt.Sprintf("no quote cycle has completed for %s (max %s)", gap, m)
		}
	}
	m := g.cfg.MaxBookAge
	if m <= 0 {
		return 0, ""
	}
	// A book may turn stale just after a cycle judged it: the next cycle
	// cancels what rests on it. Give the loop two cycles to get there.
	slack := 2 * g.l.cfg.Cycle
	n, oldest := 0, -1
	for _, o := range v.orders {
		// Orders the guard found final count until the loop reads them
		// back: that is when the loop sees again.
		if o.market < 0 || o.market >= len(v.books) || v.books[o.market].IsZero() {
			continue
		}
		stale := v.books[o.market].Add(m)
		if now.After(stale) && !v.judged.After(stale) && now.Sub(v.judged) > slack {
			n++
			if oldest < 0 || v.books[o.market].Before(v.books[oldest]) {
				oldest = o.market
			}
		}
	}
	if n == 0 {
		return 0, ""
	}
	return risk.TripStaleQuotes, fmt.Sprintf("%d live orders rest on books up to %s old (max %s; oldest: market %s) that no quote cycle has seen since",
		n, now.Sub(v.books[oldest]), m, v.conds[oldest])
}

// cancel cancels the orders concurrently, each with its own timeout, and
// records those found final for the loop. When the DELETE budget cannot take
// them all now, it sends what it can (at least one), least recently tried
// first, and the next looks send the rest. It returns how many were found
// final and how many may still be live.
func (g *Guard) cancel(ctx context.Context, all []viewOrderCopy, now time.Time) (final, left int) {
	orders := all
	if n := max(g.l.venue.Budget(now).Cancels, 1); n < len(orders) {
		orders = slices.Clone(orders)
		sort.SliceStable(orders, func(i, j int) bool { return g.tried[orders[i].hash].Before(g.tried[orders[j].hash]) })
		orders = orders[:n]
	}
	for _, o := range orders {
		g.tried[o.hash] = now
	}
	pending := make(map[string]bool, len(all))
	for _, o := range all {
		pending[o.hash] = true
	}
	for h := range g.tried {
		if !pending[h] {
			delete(g.tried, h) // final, or no longer the loop's
		}
	}
	isFinal := make([]bool, len(orders))
	fanOut(ctx, g.l.clock, g.cfg.RequestTimeout, g.cfg.Concurrency, len(orders), func(ctx context.Context, i int) {
		isFinal[i] = g.cancelOne(ctx, orders[i].id)
	})
	var settled []string
	for i := range orders {
		if isFinal[i] {
			settled = append(settled, orders[i].hash)
		}
	}
	g.l.view.settle(settled)
	return len(settled), len(all) - len(settled)
}

// cancelOne cancels one order and reports whether it is final at the
// exchange: confirmed cancelled, or (when the exchange did not cancel it)
// read back as matched or cancelled. An order the exchange does not know
// is not final: its placement may still be on its way.
func (g *Guard) cancelOne(ctx context.Context, id string) bool {
	v := g.l.venue
	res, err := v.CancelOrder(ctx, id)
	if err == nil && slices.Contains(res.Canceled, id) {
		return true
	}
	if err != nil && !errors.Is(err, exchange.ErrNotFound) {
		g.l.log.Debug().Str("order", short(id)).Err(err).Msg("guard: cancel failed; trying again at the next look")
		return false
	}
	eo, err := v.Order(ctx, id)
	if err != nil {
		return false
	}
	switch strings.ToUpper(eo.Status) {
	case exchange.StatusMatched, exchange.StatusCanceled:
		return true
	}
	return false
}
