package assemble

import (
	"fmt"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/state"
)

// The exchange counts a restarted process's requests together with its
// predecessor's, so the client's rate-limit buckets must not start full:
// the journal keeps what they spent (state's rate-limit record), and the
// next process's client starts from it (exchange.WithSpent). See
// docs/protocol.md, "Across restarts".

// spentSaveInterval is how often a running process saves its client's
// Spent. After a SIGKILL the successor counts what the dead process's
// buckets could still have given since the last save, so the interval
// costs nothing in safety: it bounds how stale the record is.
const spentSaveInterval = time.Second

// SpentOptions returns the option that starts a client from the journal's
// rate-limit record. A journal with none that was not just created was
// last used by a binary that kept none, and a record that cannot be read
// tells nothing either: then every bucket starts as if its predecessor had
// spent all it could (the zero exchange.Spent), which costs at most the
// first burst of each bucket.
func SpentOptions(store *state.Store, log zerolog.Logger) []exchange.Option {
	sp, ok, err := store.RateSpent()
	switch {
	case err != nil:
		log.Warn().Err(err).Msg("rate-limit record unreadable: every rate-limit bucket starts empty")
		return []exchange.Option{exchange.WithSpent(exchange.Spent{})}
	case !ok && !store.Created():
		log.Info().Msg("the journal has no rate-limit record (an older mmbot used it): every rate-limit bucket starts empty")
		return []exchange.Option{exchange.WithSpent(exchange.Spent{})}
	case !ok:
		return nil
	}
	log.Info().Time("at", sp.At).Bool("final", sp.Final).Msg("rate-limit buckets start from the journal's record")
	return []exchange.Option{exchange.WithSpent(sp)}
}

// SpentSaver writes the client's Spent to the journal: once before the
// client sends anything, then every spentSaveInterval while it admits
// requests, and the final one (Retire) when the process stops.
type SpentSaver struct {
	client *exchange.Client
	store  *state.Store
	log    zerolog.Logger

	quit chan struct{}
	done chan struct{}
	once sync.Once
}

// StartSpentSaver saves the client's first record, which replaces the
// predecessor's (a crash from here on is one of this process), and starts
// the periodic saves. It fails when the journal cannot be written: then no
// request has been sent.
func StartSpentSaver(client *exchange.Client, store *state.Store, log zerolog.Logger) (*SpentSaver, error) {
	if err := store.SaveRateSpent(client.Spent()); err != nil {
		return nil, fmt.Errorf("saving the rate-limit record: %w", err)
	}
	s := &SpentSaver{client: client, store: store, log: log, quit: make(chan struct{}), done: make(chan struct{})}
	go s.run()
	return s, nil
}

func (s *SpentSaver) run() {
	defer close(s.done)
	t := time.NewTicker(spentSaveInterval)
	defer t.Stop()
	last := s.admitted()
	failing := false
	for {
		select {
		case <-s.quit:
			return
		case <-t.C:
		}
		n := s.admitted()
		if n == last && !failing {
			continue // nothing admitted since: the last record still holds
		}
		err := s.store.SaveRateSpent(s.client.Spent())
		switch {
		case err != nil && !failing:
			s.log.Error().Err(err).Msg("saving the rate-limit record failed; a restart will count this process's buckets as spent since the last save")
		case err == nil && failing:
			s.log.Info().Msg("the rate-limit record is saved again")
		}
		failing = err != nil
		last = n
	}
}

// admitted is the number of units the client's buckets have admitted.
func (s *SpentSaver) admitted() uint64 {
	var n uint64
	for _, b := range s.client.Buckets(time.Now()) {
		n += b.Admitted
	}
	return n
}

// Retire stops the periodic saves, retires the client (it sends nothing
// more) and saves the final record. Call it once nothing needs the client.
func (s *SpentSaver) Retire() error {
	var err error
	s.once.Do(func() {
		close(s.quit)
		<-s.done
		if err = s.store.SaveRateSpent(s.client.Retire()); err != nil {
			err = fmt.Errorf("saving the final rate-limit record: %w", err)
		}
	})
	return err
}
