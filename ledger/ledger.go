package ledger

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/state"
)

var (
	// ErrEmptyPeriod: the journal holds no fill in the period (or none at
	// all). The error names the span of the fills it does hold.
	ErrEmptyPeriod = errors.New("no fills in the period")

	// ErrBadPeriod: a period without an end, or one that ends before it
	// starts.
	ErrBadPeriod = errors.New("bad period")
)

// Period is the half-open time range [From, To). A zero From starts at the
// journal's first fill; To is required.
type Period struct {
	From, To time.Time
}

// String is "FROM to TO" in RFC 3339, UTC.
func (p Period) String() string {
	return p.From.UTC().Format(time.RFC3339) + " to " + p.To.UTC().Format(time.RFC3339)
}

// Journal is the part of an order journal that one period's report needs:
// read it with Load, report it with Results.
type Journal struct {
	period   Period
	opening  map[string]opening // positions held at From
	fills    []state.Fill       // the period's, oldest first
	placed   []placedOrder      // sent in the period
	canceled []canceledOrder    // recorded canceled in the period
	closing  map[string]decimal.Decimal
	tokens   map[string]tokenInfo
	failed   []state.Trade // trades that failed at settlement in the period, oldest first
}

// opening is a position carried into the period.
type opening struct {
	shares, cost decimal.Decimal
	last         decimal.Decimal // the last fill price before the period
}

type placedOrder struct {
	at    time.Time
	token string
	side  exchange.Side
	price exchange.Fixed
	size  exchange.Fixed
}

type canceledOrder struct {
	at    time.Time
	token string
}

// tokenInfo is what the journal says about a token's market.
type tokenInfo struct {
	condition string
	outcome   int // -1: unknown (only external fills name the token)
}

// sentStates are the states of an order that reached the exchange (or may
// have: Sent is an answer not yet known). Intent never left; Failed never
// did, or was refused.
var sentStates = []state.OrderState{state.Sent, state.Live, state.PartiallyFilled, state.Filled, state.Canceled}

// Load reads what the report of period p needs from s, in one read
// transaction: the fills before p.To (those before p.From only as the
// positions and last prices they leave), and a digest of the orders sent
// or canceled in p. A zero p.From starts the period at the journal's first
// fill or first order sent, whichever is earlier. Load fails with
// ErrEmptyPeriod when no fill falls in p, and with ErrBadPeriod when p has
// no end or ends before it starts.
func Load(s *state.Store, p Period) (*Journal, error) {
	if p.To.IsZero() {
		return nil, fmt.Errorf("%w: no end", ErrBadPeriod)
	}
	if !p.From.IsZero() && !p.From.Before(p.To) {
		return nil, fmt.Errorf("%w: %s ends before it starts", ErrBadPeriod, p)
	}
	j := &Journal{period: p, opening: map[string]opening{}, closing: map[string]decimal.Decimal{}, tokens: map[string]tokenInfo{}}
	err := s.View(func(tx *state.Tx) error {
		all, err := tx.Fills(time.Time{})
		if err != nil {
			return fmt.Errorf("read fills: %w", err)
		}
		if len(all) == 0 || !all[0].Time.Before(p.To) {
			return emptyPeriod(p, all)
		}
		if err := j.readOrders(tx); err != nil {
			return err
		}
		if j.period.From.IsZero() {
			j.period.From = all[0].Time
			if len(j.placed) > 0 && j.placed[0].at.Before(j.period.From) {
				j.period.From = j.placed[0].at
			}
		}
		if err := j.foldFills(all); err != nil {
			return err
		}
		if err := j.readFailed(tx); err != nil {
			return err
		}
		if len(j.fills) == 0 {
			return emptyPeriod(j.period, all)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return j, nil
}

// emptyPeriod is the ErrEmptyPeriod of p, naming the fills the journal has.
func emptyPeriod(p Period, all []state.Fill) error {
	if len(all) == 0 {
		return fmt.Errorf("%w: the journal holds no fills", ErrEmptyPeriod)
	}
	span := "to " + p.To.UTC().Format(time.RFC3339)
	if !p.From.IsZero() {
		span = "from " + p.String()
	}
	return fmt.Errorf("%w: none %s; the journal's %d fills run from %s to %s", ErrEmptyPeriod, span,
		len(all), all[0].Time.UTC().Format(time.RFC3339), all[len(all)-1].Time.UTC().Format(time.RFC3339))
}

// foldFills splits the journal's fills (oldest first) around the period:
// those before it become the opening positions and prices, those in it are
// kept, and every one before the end counts towards the closing positions.
func (j *Journal) foldFills(all []state.Fill) error {
	pos := map[string]*state.Position{}
	last := map[string]decimal.Decimal{}
	apply := func(f state.Fill) error {
		p := pos[f.TokenID]
		if p == nil {
			p = &state.Position{TokenID: f.TokenID}
			pos[f.TokenID] = p
		}
		// The journal checked every fill when it was added, in the order it
		// was added; in time order a sale may come first, so no oversell
		// check here.
		f.Short = true
		if err := p.Apply(&f); err != nil {
			return fmt.Errorf("fill %s: %w", f.ID, err)
		}
		if !f.Reversal { // a trade that never happened sets no price
			last[f.TokenID] = f.Price
		}
		// Orders name a token's market and outcome; an external fill only
		// its market.
		if ti, ok := j.tokens[f.TokenID]; !ok {
			j.tokens[f.TokenID] = tokenInfo{condition: f.ConditionID, outcome: -1}
		} else if ti.condition == "" {
			ti.condition = f.ConditionID
			j.tokens[f.TokenID] = ti
		}
		return nil
	}
	i := 0
	for ; i < len(all) && all[i].Time.Before(j.period.From); i++ {
		if err := apply(all[i]); err != nil {
			return err
		}
	}
	for tok, p := range pos {
		if !p.Shares.IsZero() {
			j.opening[tok] = opening{shares: p.Shares, cost: p.Cost, last: last[tok]}
		}
	}
	for ; i < len(all) && all[i].Time.Before(j.period.To); i++ {
		if err := apply(all[i]); err != nil {
			return err
		}
		j.fills = append(j.fills, all[i])
	}
	for tok, p := range pos {
		if !p.Shares.IsZero() {
			j.closing[tok] = p.Shares
		}
	}
	return nil
}

// readOrders keeps a digest of the orders sent, or recorded canceled, in
// the period (before its end when it has no start yet), oldest first, and
// learns each token's market and outcome from its orders.
func (j *Journal) readOrders(tx *state.Tx) error {
	in := func(t time.Time) bool {
		return !t.IsZero() && !t.Before(j.period.From) && t.Before(j.period.To)
	}
	names := map[string]string{} // one copy of each token id
	intern := func(s string) string {
		if v, ok := names[s]; ok {
			return v
		}
		names[s] = s
		return s
	}
	err := tx.EachOrder(state.OrderFilter{States: sentStates}, func(o *state.Order) error {
		tok := intern(o.TokenID)
		if _, ok := j.tokens[tok]; !ok {
			j.tokens[tok] = tokenInfo{condition: o.ConditionID, outcome: o.Outcome}
		}
		if in(o.SentAt) {
			price, err := exchange.FixedFromDecimal(o.Price)
			if err != nil {
				return fmt.Errorf("order %s: price: %w", o.Hash, err)
			}
			size, err := exchange.FixedFromDecimal(o.Size)
			if err != nil {
				return fmt.Errorf("order %s: size: %w", o.Hash, err)
			}
			j.placed = append(j.placed, placedOrder{at: o.SentAt, token: tok, side: o.Side, price: price, size: size})
		}
		if o.State == state.Canceled && in(o.UpdatedAt) {
			j.canceled = append(j.canceled, canceledOrder{at: o.UpdatedAt, token: tok})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read orders: %w", err)
	}
	// EachOrder goes by hash, so a stable sort by time is deterministic.
	slices.SortStableFunc(j.placed, func(a, b placedOrder) int { return a.at.Compare(b.at) })
	slices.SortStableFunc(j.canceled, func(a, b canceledOrder) int { return a.at.Compare(b.at) })
	return nil
}

// Period returns the period read, its start resolved.
func (j *Journal) Period() Period { return j.period }

// Fills returns the number of fills in the period.
func (j *Journal) Fills() int { return len(j.fills) }

// Open returns the tokens with a position at the period's end, by id: the
// ones worth a current mid (Options.Mids).
func (j *Journal) Open() []string {
	out := make([]string, 0, len(j.closing))
	for tok := range j.closing {
		out = append(out, tok)
	}
	slices.Sort(out)
	return out
}

// readFailed keeps the trades that failed at settlement in the period.
func (j *Journal) readFailed(tx *state.Tx) error {
	ts, err := tx.FailedTrades(j.period.From)
	if err != nil {
		return fmt.Errorf("read failed trades: %w", err)
	}
	for _, t := range ts {
		if t.UpdatedAt.Before(j.period.To) {
			j.failed = append(j.failed, t)
		}
	}
	return nil
}

// FailedTrades returns the trades that failed at settlement in the period,
// oldest first: each one's fill was taken back by a reversal fill (booked
// in Results as the opposite fill at the same price).
func (j *Journal) FailedTrades() []state.Trade { return j.failed }

// Reversals returns how many of the period's fills are reversals.
func (j *Journal) Reversals() int {
	n := 0
	for i := range j.fills {
		if j.fills[i].Reversal {
			n++
		}
	}
	return n
}
