package clocktest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

var start = time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)

func TestSleepWakesInDeadlineOrder(t *testing.T) {
	c := New(start)
	ctx := context.Background()
	var mu sync.Mutex
	var order []time.Duration
	var wg sync.WaitGroup
	for _, d := range []time.Duration{3 * time.Second, time.Second, 2 * time.Second} {
		wg.Go(func() {
			if err := c.Sleep(ctx, d); err != nil {
				t.Error(err)
			}
			mu.Lock()
			order = append(order, c.Now().Sub(start))
			mu.Unlock()
		})
	}
	if err := c.BlockUntil(ctx, 3); err != nil {
		t.Fatal(err)
	}
	c.Advance(1500 * time.Millisecond) // wakes the 1 s sleeper only
	if err := c.BlockUntil(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if c.Waiters() != 2 {
		t.Fatalf("waiters = %d after the first wake", c.Waiters())
	}
	for c.AdvanceToNext() {
		if err := c.BlockUntil(ctx, 0); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	if got := c.Now().Sub(start); got != 3*time.Second {
		t.Errorf("clock ends at +%v, want +3s", got)
	}
	if len(order) != 3 || order[0] < time.Second {
		t.Errorf("wake times %v", order)
	}
}

func TestAfterSetAndEdges(t *testing.T) {
	c := New(start)
	ch := c.After(time.Minute)
	select {
	case <-ch:
		t.Fatal("After fired early")
	default:
	}
	c.Set(start.Add(-time.Hour)) // backwards: ignored
	if !c.Now().Equal(start) {
		t.Fatalf("Set moved the clock back to %v", c.Now())
	}
	c.Set(start.Add(time.Minute))
	if got := <-ch; !got.Equal(start.Add(time.Minute)) {
		t.Errorf("After delivered %v", got)
	}
	if got := <-c.After(0); !got.Equal(c.Now()) {
		t.Errorf("After(0) delivered %v", got)
	}
	if c.AdvanceToNext() {
		t.Error("AdvanceToNext with nobody waiting moved the clock")
	}
	c.Advance(-time.Second)
	if !c.Now().Equal(start.Add(time.Minute)) {
		t.Error("negative Advance moved the clock")
	}
	if err := c.Sleep(context.Background(), 0); err != nil {
		t.Errorf("Sleep(0) = %v", err)
	}
}

func TestSleepCancelled(t *testing.T) {
	c := New(start)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Sleep(ctx, time.Hour) }()
	if err := c.BlockUntil(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Sleep = %v", err)
	}
	if c.Waiters() != 0 {
		t.Errorf("a cancelled sleeper is still waiting")
	}
	if err := c.Sleep(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep(0) on a done ctx = %v", err)
	}
	bctx, bcancel := context.WithCancel(context.Background())
	bcancel()
	if err := c.BlockUntil(bctx, 5); !errors.Is(err, context.Canceled) {
		t.Errorf("BlockUntil on a done ctx = %v", err)
	}
}

func TestAfterFuncFiresOnceAndStops(t *testing.T) {
	c := New(start)
	fired := make(chan time.Time, 2)
	stop := c.AfterFunc(time.Second, func() { fired <- c.Now() })
	stopped := c.AfterFunc(time.Second, func() { fired <- time.Time{} })
	if c.Waiters() != 2 {
		t.Fatalf("waiters = %d, want 2 registered before AfterFunc returned", c.Waiters())
	}
	if !stopped() {
		t.Fatal("stop of a pending AfterFunc reported false")
	}
	if c.Waiters() != 1 {
		t.Fatalf("waiters = %d after a stop, want 1", c.Waiters())
	}
	c.Advance(999 * time.Millisecond)
	select {
	case <-fired:
		t.Fatal("fired early")
	default:
	}
	c.Advance(time.Millisecond)
	if at := <-fired; !at.Equal(start.Add(time.Second)) {
		t.Fatalf("fired at %v", at)
	}
	if stop() {
		t.Fatal("stop after firing reported true")
	}
	c.Advance(time.Hour)
	select {
	case at := <-fired:
		t.Fatalf("a stopped AfterFunc fired (%v)", at)
	default:
	}
	done := make(chan struct{})
	if c.AfterFunc(0, func() { close(done) })() {
		t.Fatal("stop of an immediate AfterFunc reported true")
	}
	<-done
}
