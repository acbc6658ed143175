package recorder

import (
	"sync"

	"github.com/mmbot/mmbot/backtest/recording"
)

// AsyncSink queues events and writes them to another EventSink from its own
// goroutine. Write never blocks and never calls the destination, so it can
// be called from a callback that holds somebody else's lock (the simulated
// exchange's OnBook and OnTrade hooks). The queue is unbounded: nothing is
// dropped.
type AsyncSink struct {
	dst  recording.EventSink
	wake chan struct{}
	done chan struct{}

	mu      sync.Mutex
	queue   []recording.Event
	closed  bool
	err     error
	written int
}

// NewAsyncSink starts the writing goroutine; Close stops it.
func NewAsyncSink(dst recording.EventSink) *AsyncSink {
	a := &AsyncSink{dst: dst, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go a.run()
	return a
}

// Write queues e. It returns the destination's first error, if one has
// happened (later events are then discarded), and ErrClosed after Close.
func (a *AsyncSink) Write(e recording.Event) error {
	a.mu.Lock()
	switch {
	case a.closed:
		a.mu.Unlock()
		return recording.ErrClosed
	case a.err != nil:
		err := a.err
		a.mu.Unlock()
		return err
	}
	a.queue = append(a.queue, e)
	a.mu.Unlock()
	select {
	case a.wake <- struct{}{}:
	default:
	}
	return nil
}

// Written returns how many events reached the destination.
func (a *AsyncSink) Written() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.written
}

// Close stops accepting events, waits until the queued ones are written and
// returns the destination's first error. It does not close the destination.
func (a *AsyncSink) Close() error {
	a.mu.Lock()
	already := a.closed
	a.closed = true
	a.mu.Unlock()
	if !already {
		select {
		case a.wake <- struct{}{}:
		default:
		}
	}
	<-a.done
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

func (a *AsyncSink) run() {
	defer close(a.done)
	var batch []recording.Event
	for {
		<-a.wake
		for {
			a.mu.Lock()
			batch, a.queue = a.queue, batch[:0]
			closed, failed := a.closed, a.err != nil
			a.mu.Unlock()
			if len(batch) == 0 {
				if closed {
					return
				}
				break
			}
			n := 0
			var err error
			if !failed {
				for i := range batch {
					if err = a.dst.Write(batch[i]); err != nil {
						break
					}
					n++
				}
			}
			clear(batch)
			a.mu.Lock()
			a.written += n
			if err != nil && a.err == nil {
				a.err = err
			}
			a.mu.Unlock()
		}
	}
}
