package recorder

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/mmbot/mmbot/backtest/internal/fixture"
	"github.com/mmbot/mmbot/backtest/recording"
)

func TestAsyncSink(t *testing.T) {
	dst := &recSink{}
	a := NewAsyncSink(dst)
	var wg sync.WaitGroup
	const writers, each = 4, 250
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				tok := fmt.Sprintf("%d-%d", w, i)
				if err := a.Write(recording.BookEvent(&recording.Book{TokenID: tok, Stamp: recording.Stamp{Received: fixture.T0}})); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if len(dst.events) != writers*each || a.Written() != writers*each {
		t.Fatalf("%d events written, Written %d", len(dst.events), a.Written())
	}
	// Each writer's events keep their order.
	next := map[byte]int{}
	for _, e := range dst.events {
		var w byte
		var i int
		if _, err := fmt.Sscanf(e.Book.TokenID, "%c-%d", &w, &i); err != nil {
			t.Fatal(err)
		}
		if i != next[w] {
			t.Fatalf("writer %c: event %d after %d", w, i, next[w]-1)
		}
		next[w]++
	}
	if err := a.Write(recording.BookEvent(&recording.Book{TokenID: "late"})); !errors.Is(err, recording.ErrClosed) {
		t.Errorf("Write after Close: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestAsyncSinkError(t *testing.T) {
	boom := errors.New("disk full")
	dst := &recSink{fail: boom}
	a := NewAsyncSink(dst)
	if err := a.Write(recording.BookEvent(&recording.Book{TokenID: "1"})); err != nil {
		t.Fatal(err) // not yet written: no error known
	}
	if err := a.Close(); !errors.Is(err, boom) {
		t.Errorf("Close: %v, want the destination's error", err)
	}
}
