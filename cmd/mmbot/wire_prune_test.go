package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mmbot/mmbot/state"
)

// The pruner removes, in batches, the final orders with nothing matched
// that are past the retention, and keeps those within it and every order
// with a fill.
func TestPrunerPass(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mmbot.db")
	writeJournal(t, path, 300) // a minute apart from journalT0; every tenth filled
	st, err := state.Open(path, state.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := journalT0.Add(300*time.Minute + time.Hour)
	p := &pruner{store: st, retention: 2 * time.Hour, batch: 40, now: func() time.Time { return now }, log: zerolog.Nop(),
		quit: make(chan struct{}), done: make(chan struct{})}
	// Final before now - 2h: the orders of minutes 0..239 (canceled ones:
	// 216 of them).
	n, err := p.pass()
	if err != nil || n != 216 {
		t.Fatalf("pass pruned %d (%v), want 216", n, err)
	}
	orders, _ := st.Orders(state.OrderFilter{})
	if len(orders) != 300-216 {
		t.Fatalf("%d orders left, want %d", len(orders), 300-216)
	}
	if fills, _ := st.Fills(time.Time{}); len(fills) != 30 {
		t.Fatalf("%d fills left, want 30", len(fills))
	}
	if err := st.Check(); err != nil {
		t.Fatal(err)
	}
}

// A zero retention keeps everything and starts nothing; a started pruner
// stops when asked.
func TestPrunerStartStop(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mmbot.db")
	writeJournal(t, path, 10)
	st, err := state.Open(path, state.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	far := func() time.Time { return journalT0.Add(1000 * time.Hour) }
	startPruner(st, 0, 100, far, zerolog.Nop()).stop()
	if orders, _ := st.Orders(state.OrderFilter{}); len(orders) != 10 {
		t.Fatalf("retention 0 pruned: %d orders left", len(orders))
	}
	p := startPruner(st, time.Hour, 100, far, zerolog.Nop())
	p.stop()
	p.stop() // twice is fine
}
