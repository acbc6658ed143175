package scoreboard

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange/sim"
	"github.com/mmbot/mmbot/exchange/sim/catalog"
)

// chunk is how far Generate advances the manual clock between checks of
// the context and of resolutions.
const chunk = time.Minute

// SimConfig is the simulated exchange of the scenario: its catalog (with
// the scenario's reward terms and end dates), its flow, a manual clock
// starting at Epoch and no rate limits. The caller adds the hooks.
func (s *Scenario) SimConfig() (sim.Config, error) {
	if err := s.Validate(); err != nil {
		return sim.Config{}, err
	}
	// The generated catalog closes about one event in ten: generate more
	// markets until Markets of them are open.
	var cat *catalog.Catalog
	for n := s.Markets; ; n++ {
		c, err := catalog.Generate(s.Seed, n, Epoch)
		if err != nil {
			return sim.Config{}, fmt.Errorf("scenario %s: %w", s.Name, err)
		}
		cat = c
		if len(openMarkets(c)) >= s.Markets || n >= 4*s.Markets {
			break
		}
	}
	end := Epoch.Add(s.EndAfter).Truncate(time.Second)
	ends := map[int64]bool{}
	for i := range cat.Markets {
		m := &cat.Markets[i]
		if m.Closed {
			continue
		}
		m.Rewards = catalog.Rewards{MaxSpread: decimal.Zero, MinSize: decimal.Zero, DailyRate: decimal.Zero}
		if r := s.Rewards; r != nil {
			m.Rewards = catalog.Rewards{MaxSpread: r.MaxSpreadCents, MinSize: decimal.Max(r.MinSize, m.MinOrderSize), DailyRate: r.DailyRate}
		}
		if s.EndAfter > 0 {
			m.EndDate = end
			ends[m.EventID] = true
		}
	}
	for i := range cat.Events {
		if ends[cat.Events[i].ID] {
			cat.Events[i].EndDate = end
		}
	}
	return sim.Config{Seed: s.Seed, Catalog: cat, Start: Epoch, Manual: true, NoRateLimits: true, Flow: s.Flow,
		WallClock: func() time.Time { return Epoch }}, nil
}

// Generate runs the scenario's exchange on its manual clock for the
// scenario's duration and returns what it recorded: each open market's
// terms and books at the start, then every book change and trade, and a
// resolution for each market that resolved. No time passes but the
// machine's.
func Generate(ctx context.Context, s Scenario) ([]recording.Event, error) {
	cfg, err := s.SimConfig()
	if err != nil {
		return nil, err
	}
	var out []recording.Event
	err = Simulate(ctx, cfg, s.Duration, func(ev []recording.Event) error {
		out = append(out, ev...)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	return out, nil
}

// Simulate builds the exchange of cfg (which must select the manual clock;
// its hooks are replaced), runs it for d, and hands what it records to each
// in batches, in time order: each open market's terms and books at the
// start, every book change and trade, and a resolution for each market that
// resolves. The clock moves a minute at a time, and stops at each end date
// to stamp the resolution.
func Simulate(ctx context.Context, cfg sim.Config, d time.Duration, each func([]recording.Event) error) error {
	if !cfg.Manual {
		return sim.ErrNotManual
	}
	t := &Tape{}
	cfg.OnBook, cfg.OnTrade = t.OnBook, t.OnTrade
	ex, err := sim.New(cfg)
	if err != nil {
		return err
	}
	defer ex.Close()
	t.Start(ex, ex.Now())
	open := openMarkets(ex.Catalog())
	stop := ex.Now().Add(d)
	for now := ex.Now(); ; now = ex.Now() {
		if err := t.Err(); err != nil {
			return err
		}
		if err := each(t.Drain()); err != nil {
			return err
		}
		if !now.Before(stop) {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		next := now.Add(chunk)
		if next.After(stop) {
			next = stop
		}
		for _, m := range open {
			if m.EndDate.After(now) && m.EndDate.Before(next) {
				next = m.EndDate
			}
		}
		if err := ex.Advance(next.Sub(now)); err != nil {
			return err
		}
		open = t.resolutions(ex, open, next)
	}
}

// openMarkets lists the catalog's markets that are not closed.
func openMarkets(c *catalog.Catalog) []*catalog.Market {
	var out []*catalog.Market
	for i := range c.Markets {
		if !c.Markets[i].Closed {
			out = append(out, &c.Markets[i])
		}
	}
	return out
}

// Tape turns a simulated exchange's books and trades into recording
// events. Its OnBook and OnTrade are the exchange's hooks; they convert and
// hand on, and never call back into the exchange. A Tape made by NewTape
// hands each event to its output (`mmbot sim --record` queues them for a
// file); the zero Tape keeps them in memory for Drain.
type Tape struct {
	mu      sync.Mutex
	out     func(recording.Event)
	events  []recording.Event
	filter  recording.BookFilter
	last    time.Time
	started bool
	stopped bool
	skipped int
	err     error
}

// NewTape returns a Tape that hands every event to out, under its lock and
// in order.
func NewTape(out func(recording.Event)) *Tape { return &Tape{out: out} }

// Stop ends the recording: later hooks are ignored.
func (t *Tape) Stop() {
	t.mu.Lock()
	t.stopped = true
	t.mu.Unlock()
}

// Skipped is how many events the recording format could not hold.
func (t *Tape) Skipped() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.skipped
}

// Start records each open market's terms (one meta per token, with the
// reward terms and end date) and its books at time at, then starts taking
// what the hooks report. Call it with the exchange's clock not running.
func (t *Tape) Start(ex *sim.Exchange, at time.Time) {
	markets := openMarkets(ex.Catalog())
	for _, m := range markets {
		for _, tok := range m.TokenIDs {
			t.add(recording.MetaEvent(&recording.Meta{Stamp: recording.Stamp{Received: at}, TokenID: tok, Market: m.ConditionID,
				TickSize: m.TickSize, MinOrderSize: m.MinOrderSize, EndDate: m.EndDate, RewardMaxSpread: m.Rewards.MaxSpread,
				RewardMinSize: m.Rewards.MinSize, RewardDailyRate: m.Rewards.DailyRate}))
		}
	}
	for _, m := range markets {
		ev := sim.BookEvent{Time: at, Market: m.ConditionID}
		ok := true
		for j, tok := range m.TokenIDs {
			b, err := ex.Book(tok)
			if err != nil {
				ok = false
				break
			}
			ev.Books[j] = b
		}
		if ok {
			t.books(ev)
		}
	}
	t.mu.Lock()
	t.started = true
	t.mu.Unlock()
}

// OnBook is the exchange's OnBook hook.
func (t *Tape) OnBook(ev sim.BookEvent) {
	if t.recording() {
		t.books(ev)
	}
}

func (t *Tape) books(ev sim.BookEvent) {
	for i := range ev.Books {
		b := &ev.Books[i]
		bk := &recording.Book{Stamp: recording.Stamp{Exchange: ev.Time, Received: ev.Time}, TokenID: b.AssetID, Market: ev.Market,
			Bids: b.Bids, Asks: b.Asks, TickSize: b.TickSize, MinOrderSize: b.MinOrderSize}
		t.mu.Lock()
		changed := t.filter.Changed(bk, b.Hash)
		t.mu.Unlock()
		if changed {
			t.add(recording.BookEvent(bk))
		}
	}
}

// OnTrade is the exchange's OnTrade hook.
func (t *Tape) OnTrade(ev sim.TradeEvent) {
	if !t.recording() {
		return
	}
	t.add(recording.TradeEvent(&recording.Trade{Stamp: recording.Stamp{Exchange: ev.Time, Received: ev.Time}, TokenID: ev.Token,
		Market: ev.Market, Price: ev.Price, Size: ev.Size, TakerSide: ev.Side}))
}

// resolutions records the markets of open that have resolved, at time at,
// and returns the others.
func (t *Tape) resolutions(ex *sim.Exchange, open []*catalog.Market, at time.Time) []*catalog.Market {
	var still []*catalog.Market
	for _, m := range open {
		w, ok := ex.Resolution(m.ConditionID)
		if !ok {
			still = append(still, m)
			continue
		}
		for o, tok := range m.TokenIDs {
			pay := decimal.Zero
			if o == w {
				pay = decimal.NewFromInt(1)
			}
			t.add(recording.MetaEvent(&recording.Meta{Stamp: recording.Stamp{Exchange: at, Received: at}, TokenID: tok,
				Market: m.ConditionID, Resolved: true, Payout: pay}))
		}
	}
	return still
}

func (t *Tape) recording() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.started && !t.stopped
}

// add stamps e no earlier than the previous event and keeps it; an event
// the recording format cannot hold is an error (the simulator made it).
func (t *Tape) add(e recording.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	var st *recording.Stamp
	switch e.Kind {
	case recording.KindBook:
		st = &e.Book.Stamp
	case recording.KindTrade:
		st = &e.Trade.Stamp
	case recording.KindMeta:
		st = &e.Meta.Stamp
	}
	if st.Received.Before(t.last) {
		st.Received = t.last
	}
	if err := e.Validate(); err != nil {
		t.skipped++
		if t.err == nil {
			t.err = fmt.Errorf("scoreboard: recording: %w", err)
		}
		return
	}
	t.last = st.Received
	if t.out != nil {
		t.out(e)
		return
	}
	t.events = append(t.events, e)
}

// Drain returns the events recorded since the last Drain.
func (t *Tape) Drain() []recording.Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	ev := t.events
	t.events = nil
	return ev
}

// Err returns the first event that could not be recorded.
func (t *Tape) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}
