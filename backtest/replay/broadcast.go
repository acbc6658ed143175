package replay

import (
	"errors"
	"sync"

	"github.com/mmbot/mmbot/backtest/recording"
)

// Broadcast reads one Source once, on its own goroutine, and hands the same
// events to several replays: each of its Readers returns every event of the
// source, in order, so a sweep's cells share one decoding. Events are read
// in batches (their books copied, as the Prefetcher does); a batch is kept
// until every open Reader has passed it, and the source is read at most
// depth batches ahead of the slowest Reader, so memory stays flat in the
// length of the recording.
//
// The Readers must be read concurrently (one goroutine each): a Reader
// waiting for a batch waits for the slowest one to free room. At most
// parallel of them work on a batch at a time, the ones furthest behind
// first, so that many Readers run at the speed of parallel cores without
// more going at once, and keep together within the window.
//
// Close every Reader when its replay is done (a Reader closed early no
// longer holds the others back), and the Broadcast when all are.
type Broadcast struct {
	mu      sync.Mutex
	cond    *sync.Cond
	batches []*castBatch // read, not yet passed by every open Reader; batches[0] is number base
	base    int
	done    bool  // the source ended (err says how)
	err     error // the source's error (io.EOF at a clean end)
	stopped bool  // Close was called
	open    int   // Readers not closed
	readers []*CastReader
	depth   int

	parallel int // Readers working on a batch at once, at most
	busy     int // Readers working on a batch

	exit chan struct{}
	once sync.Once
}

// castBatch is a batch of events read, with the copies of their books.
type castBatch = prefetchBatch

// NewBroadcast starts reading src for n Readers: batch events per batch
// (default 1024: a turn on a core costs a hand-over between goroutines),
// at most depth batches ahead of the slowest Reader (default 4), at most
// parallel Readers working at once (default 1).
func NewBroadcast(src Source, n, batch, depth, parallel int) (*Broadcast, error) {
	if src == nil || n <= 0 {
		return nil, errors.New("backtest: a broadcast needs a source and at least one reader")
	}
	if batch <= 0 {
		batch = 1024
	}
	if depth <= 0 {
		depth = 4
	}
	parallel = max(parallel, 1)
	b := &Broadcast{open: n, depth: depth, parallel: parallel, exit: make(chan struct{})}
	b.cond = sync.NewCond(&b.mu)
	for i := range n {
		b.readers = append(b.readers, &CastReader{b: b, id: i})
	}
	go b.run(src, batch)
	return b, nil
}

// Reader returns the i-th Reader (0 ≤ i < n).
func (b *Broadcast) Reader(i int) *CastReader { return b.readers[i] }

// run reads src into batches until it ends, Close is called, or every
// Reader is closed.
func (b *Broadcast) run(src Source, size int) {
	defer close(b.exit)
	var free []*castBatch // batches every Reader passed, for reuse
	for {
		b.mu.Lock()
		for {
			free = append(free, b.reclaim()...)
			if len(b.batches) < b.depth || b.stopped || b.open == 0 {
				break
			}
			b.cond.Wait()
		}
		if b.stopped || b.open == 0 {
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()

		var buf *castBatch
		if n := len(free); n > 0 {
			buf, free = free[n-1], free[:n-1]
			buf.evs = buf.evs[:0]
			buf.books.Reset()
		} else {
			buf = &castBatch{evs: make([]recording.Event, 0, size)}
		}
		err := buf.fill(src, size)
		b.mu.Lock()
		if len(buf.evs) > 0 {
			b.batches = append(b.batches, buf)
		}
		if err != nil {
			b.done, b.err = true, err
		}
		b.cond.Broadcast()
		b.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// reclaim drops the batches every open Reader has passed and returns them.
// The caller holds mu.
func (b *Broadcast) reclaim() []*castBatch {
	low := b.base + len(b.batches)
	for _, r := range b.readers {
		if !r.closed {
			low = min(low, r.next)
		}
	}
	n := low - b.base
	if n <= 0 {
		return nil
	}
	out := append([]*castBatch(nil), b.batches[:n]...)
	for _, bt := range out {
		clear(bt.evs) // drop what the events held
	}
	b.batches = append(b.batches[:0], b.batches[n:]...)
	b.base = low
	return out
}

// Close stops the reading goroutine and waits for it; the source is not
// used after Close returns. Readers still open then get an error.
func (b *Broadcast) Close() {
	b.once.Do(func() {
		b.mu.Lock()
		b.stopped = true
		b.cond.Broadcast()
		b.mu.Unlock()
	})
	<-b.exit
}

// CastReader is one replay's Source over a Broadcast. Like the
// Prefetcher's, a book it returns is valid until the next call to Next.
type CastReader struct {
	b      *Broadcast
	id     int
	next   int // number of the next batch to take
	cur    *castBatch
	i      int
	closed bool
	busy   bool // working on a batch: one of the parallel
	wants  bool // waiting for a batch or its turn
	err    error
}

// Next implements Source. Between batches it gives up its turn on a core
// (the Broadcast's parallel), waits for the next batch, and for its turn.
func (r *CastReader) Next() (recording.Event, error) {
	for r.cur == nil || r.i >= len(r.cur.evs) {
		if r.err != nil {
			return recording.Event{}, r.err
		}
		if err := r.take(); err != nil {
			r.err = err
			return recording.Event{}, err
		}
	}
	e := r.cur.evs[r.i]
	r.i++
	return e, nil
}

// take passes the current batch, waits for the next one and for a turn
// (no more than parallel at work, none waiting further behind), and makes
// the batch current.
func (r *CastReader) take() error {
	b := r.b
	b.mu.Lock()
	defer b.mu.Unlock()
	r.pass()
	r.wants = true
	defer func() { r.wants = false }()
	for {
		switch k := r.next - b.base; {
		case r.closed:
			return errors.New("backtest: broadcast reader closed")
		case b.stopped:
			return errors.New("backtest: broadcast closed")
		case k < len(b.batches):
			if b.busy < b.parallel && b.first(r) {
				r.cur, r.i, r.busy = b.batches[k], 0, true
				b.busy++
				return nil
			}
		case b.done:
			return b.err
		}
		b.cond.Wait()
	}
}

// pass leaves the current batch (and the turn on a core). The caller holds
// mu.
func (r *CastReader) pass() {
	b := r.b
	if r.busy {
		r.busy = false
		b.busy--
	}
	if r.cur != nil {
		r.cur = nil
		r.next++
	}
	b.cond.Broadcast() // the reading goroutine may reclaim it; a Reader may take the turn
}

// first reports whether no other Reader waiting for its turn is further
// behind than r (or as far, with a lower number). The caller holds mu.
func (b *Broadcast) first(r *CastReader) bool {
	for _, o := range b.readers {
		if o != r && o.wants && !o.closed && o.next-b.base < len(b.batches) && (o.next < r.next || (o.next == r.next && o.id < r.id)) {
			return false
		}
	}
	return true
}

// Close detaches the Reader: the others no longer wait for it.
func (r *CastReader) Close() {
	b := r.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if r.closed {
		return
	}
	r.pass()
	r.closed = true
	b.open--
}

var _ Source = (*CastReader)(nil)
