package replay

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy/loop"
)

// MemJournal is an in-memory loop.Journal for backtests. It enforces
// write-ahead (an order must be an intent before it is sent, and a final
// order does not change) and keeps only what the loop reads back: the
// non-final orders and the positions. Final orders are forgotten, so its
// memory does not grow with the length of a run.
type MemJournal struct {
	orders map[string]*loop.JournaledOrder
	pos    map[string]decimal.Decimal
}

var _ loop.Journal = (*MemJournal)(nil)

// NewMemJournal returns an empty journal.
func NewMemJournal() *MemJournal {
	return &MemJournal{orders: map[string]*loop.JournaledOrder{}, pos: map[string]decimal.Decimal{}}
}

// RecordIntents implements loop.Journal.
func (j *MemJournal) RecordIntents(in []loop.Intent, now time.Time) error {
	for i := range in {
		if _, dup := j.orders[in[i].Hash]; dup {
			return fmt.Errorf("backtest journal: intent %s recorded twice", in[i].Hash)
		}
	}
	for i := range in {
		j.orders[in[i].Hash] = &loop.JournaledOrder{Intent: in[i], State: loop.JIntent, CreatedAt: now}
	}
	return nil
}

// Apply implements loop.Journal. It checks the whole batch before
// changing anything.
func (j *MemJournal) Apply(b *loop.Batch) error {
	for _, h := range b.Sent {
		if _, ok := j.orders[h]; !ok {
			return fmt.Errorf("backtest journal: order %s sent without an intent", h)
		}
	}
	for _, u := range b.Updates {
		if _, ok := j.orders[u.Hash]; !ok {
			return fmt.Errorf("backtest journal: update of unknown or final order %s", u.Hash)
		}
	}
	for _, h := range b.Sent {
		if o := j.orders[h]; o.State == loop.JIntent {
			o.State = loop.JSent
		}
	}
	for _, f := range b.Fills {
		if f.Side == exchange.Buy {
			j.pos[f.TokenID] = j.pos[f.TokenID].Add(f.Size)
		} else {
			j.pos[f.TokenID] = j.pos[f.TokenID].Sub(f.Size)
		}
	}
	for _, u := range b.Updates {
		o := j.orders[u.Hash]
		if o == nil {
			continue // made final earlier in this batch
		}
		o.State, o.SizeMatched = u.State, u.SizeMatched
		if u.ExchangeID != "" {
			o.ExchangeID = u.ExchangeID
		}
		if u.State.Final() {
			delete(j.orders, u.Hash)
		}
	}
	return nil
}

// NonFinal implements loop.Journal.
func (j *MemJournal) NonFinal() ([]loop.JournaledOrder, error) {
	out := make([]loop.JournaledOrder, 0, len(j.orders))
	for _, o := range j.orders {
		out = append(out, *o)
	}
	sortJournaled(out)
	return out, nil
}

// Positions implements loop.Journal.
func (j *MemJournal) Positions() (map[string]decimal.Decimal, error) {
	out := make(map[string]decimal.Decimal, len(j.pos))
	for k, v := range j.pos {
		out[k] = v
	}
	return out, nil
}

// Open returns the number of orders not yet final.
func (j *MemJournal) Open() int { return len(j.orders) }

func sortJournaled(s []loop.JournaledOrder) {
	slices.SortFunc(s, func(a, b loop.JournaledOrder) int { return strings.Compare(a.Hash, b.Hash) })
}
