package daemon

import (
	"time"

	"github.com/rs/zerolog"

	"github.com/mmbot/mmbot/state"
)

// pruneInterval is how often the pruner looks for final orders past the
// retention period. Each look runs batches of at most state.prune_batch
// orders, one short transaction each, with pruneYield between them so that
// a cycle's journal writes never wait behind more than one batch.
const (
	pruneInterval = 5 * time.Second
	pruneYield    = 50 * time.Millisecond
)

// pruner removes, in the background, the final orders with nothing matched
// that have been final for longer than the retention (state.Prune).
type pruner struct {
	store     *state.Store
	retention time.Duration
	batch     int
	now       func() time.Time
	log       zerolog.Logger

	quit chan struct{}
	done chan struct{}
}

// startPruner starts the pruner; a zero retention keeps every order and
// starts nothing. Stop it with stop before closing the store.
func startPruner(store *state.Store, retention time.Duration, batch int, now func() time.Time, log zerolog.Logger) *pruner {
	p := &pruner{store: store, retention: retention, batch: batch, now: now, log: log,
		quit: make(chan struct{}), done: make(chan struct{})}
	if retention <= 0 {
		close(p.done)
		return p
	}
	go p.run()
	return p
}

func (p *pruner) run() {
	defer close(p.done)
	t := time.NewTicker(pruneInterval)
	defer t.Stop()
	failing := false
	for {
		n, err := p.pass()
		switch {
		case err != nil && !failing:
			p.log.Error().Err(err).Msg("pruning the journal failed; final orders stay until it works again")
		case err == nil && failing:
			p.log.Info().Msg("pruning the journal works again")
		case n > 0:
			p.log.Debug().Int("orders", n).Msg("pruned final orders past the retention")
		}
		failing = err != nil
		select {
		case <-p.quit:
			return
		case <-t.C:
		}
	}
}

// pass prunes until nothing past the retention is left (or stop is asked).
func (p *pruner) pass() (int, error) {
	total := 0
	for {
		n, more, err := p.store.Prune(p.now().Add(-p.retention), p.batch)
		total += n
		if err != nil || !more {
			return total, err
		}
		select {
		case <-p.quit:
			return total, nil
		case <-time.After(pruneYield):
		}
	}
}

// stop ends the pruner and waits for its transaction to finish.
func (p *pruner) stop() {
	select {
	case <-p.quit:
	default:
		close(p.quit)
	}
	<-p.done
}
