package assemble

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	bolt "go.etcd.io/bbolt"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/clocktest"
	"github.com/mmbot/mmbot/state"
)

// TestSpentOptions: where the client's buckets start, for each kind of
// journal: full on a new one, from the record when there is one, and
// empty when the journal was used by a binary that kept no record or the
// record cannot be read.
func TestSpentOptions(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	// 1200 orders 3 s ago leave 1140 + 36.1·3 − 1200 = 48.3 in the
	// sustained POST /order bucket (24000/10 min, burst 1140, 36.1/s; a
	// window may hold 0.95 of the cap, 22800 = 1140 + 36.1·600)
	recent := exchange.Spent{At: now.Add(-3 * time.Second), Final: true, Buckets: []exchange.BucketSpent{
		{Name: "post_order_sustained", Units: []exchange.SpentUnits{{At: now.Add(-3 * time.Second), N: 1200}}},
	}}
	tests := []struct {
		name    string
		prepare func(t *testing.T, path string) // before the Open under test
		orders  int                             // Budget().Orders at now
		log     string
	}{
		{name: "new journal", orders: 114},
		{name: "a record", orders: 48, log: "start from the journal's record",
			prepare: func(t *testing.T, path string) {
				withStore(t, path, func(s *state.Store) error { return s.SaveRateSpent(recent) })
			}},
		{name: "an older binary's journal", orders: 0, log: "an older mmbot used it",
			prepare: func(t *testing.T, path string) { withStore(t, path, func(*state.Store) error { return nil }) }},
		{name: "an unreadable record", orders: 0, log: "rate-limit record unreadable",
			prepare: func(t *testing.T, path string) {
				withStore(t, path, func(s *state.Store) error { return s.SaveRateSpent(recent) })
				db, err := bolt.Open(path, 0o600, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				if err := db.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte("meta")).Put([]byte("rate_spent"), []byte{9}) }); err != nil {
					t.Fatal(err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "mmbot.db")
			if tt.prepare != nil {
				tt.prepare(t, path)
			}
			st, err := state.Open(path, state.Options{NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			var buf bytes.Buffer
			opts := SpentOptions(st, zerolog.New(&buf))
			c, err := exchange.NewClient(exchange.Endpoints{CLOB: "http://127.0.0.1:1"}, append(opts, exchange.WithClock(clocktest.New(now)))...)
			if err != nil {
				t.Fatal(err)
			}
			if b := c.Budget(now); b.Orders != tt.orders {
				t.Errorf("budget %+v, want %d orders", b, tt.orders)
			}
			if tt.log == "" && buf.Len() > 0 || !strings.Contains(buf.String(), tt.log) {
				t.Errorf("log %q, want a line with %q", buf.String(), tt.log)
			}
			// the first record replaces the predecessor's before any request
			saver, err := StartSpentSaver(c, st, zerolog.Nop())
			if err != nil {
				t.Fatal(err)
			}
			if sp, ok, err := st.RateSpent(); err != nil || !ok || sp.Final {
				t.Errorf("record after the start: %+v %v %v, want one that is not final", sp, ok, err)
			}
			if err := saver.Retire(); err != nil {
				t.Fatal(err)
			}
			if sp, _, _ := st.RateSpent(); !sp.Final {
				t.Error("record after retire is not final")
			}
		})
	}
}

func withStore(t *testing.T, path string, fn func(*state.Store) error) {
	t.Helper()
	st, err := state.Open(path, state.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := fn(st); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}
