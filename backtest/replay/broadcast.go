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
// parallel of them work on a batch at a time, so that many Readers run at
// the speed of parallel cores without more going at once.
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

	cpu  chan struct{} // tokens: Readers working on a batch
	quit chan struct{}
	exit chan struct{}
	once sync.Once
}

// castBatch is a batch of events read, with the copies of their books.
type castBatch struct {
	evs   []recording.Event
	books recording.BookStore
}

// NewBroadcast starts reading src for n Readers: batch events per batch
// (default 256), at most depth batches ahead of the slowest Reader
// (default 8), at most parallel Readers working at once (default 1).
func NewBroadcast(src Source, n, batch, depth, parallel int) (*Broadcast, error) {
	if src == nil || n <= 0 {
		return nil, errors.New("backtest: a broadcast needs a source and at least one reader")
	}
	if batch <= 0 {
		batch = 256
	}
	if depth <= 0 {
		depth = 8
	}
	parallel = max(parallel, 1)
	b := &Broadcast{open: n, depth: depth, cpu: make(chan struct{}, parallel), quit: make(chan struct{}), exit: make(chan struct{})}
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
		var err error
		for len(buf.evs) < size {
			var e recording.Event
			if e, err = src.Next(); err != nil {
				break
			}
			if e.Kind == recording.KindBook {
				e.Book = buf.books.Copy(e.Book)
			}
			buf.evs = append(buf.evs, e)
		}
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
	busy   bool // holds a cpu token
	err    error
}

// Next implements Source. Between batches it gives up its turn on a core
// (the Broadcast's parallel) and waits for the next batch.
func (r *CastReader) Next() (recording.Event, error) {
	for r.cur == nil || r.i >= len(r.cur.evs) {
		if r.err != nil {
			return recording.Event{}, r.err
		}
		r.yield()
		if err := r.take(); err != nil {
			r.err = err
			return recording.Event{}, err
		}
		r.b.cpu <- struct{}{}
		r.busy = true
	}
	e := r.cur.evs[r.i]
	r.i++
	return e, nil
}

// take waits for the next batch and makes it current.
func (r *CastReader) take() error {
	b := r.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if r.cur != nil {
		r.cur = nil
		r.next++
		b.cond.Broadcast() // the reading goroutine may reclaim it
	}
	for {
		switch k := r.next - b.base; {
		case r.closed:
			return errors.New("backtest: broadcast reader closed")
		case k < len(b.batches):
			r.cur, r.i = b.batches[k], 0
			return nil
		case b.done:
			return b.err
		case b.stopped:
			return errors.New("backtest: broadcast closed")
		}
		b.cond.Wait()
	}
}

// yield gives back the cpu token, if held.
func (r *CastReader) yield() {
	if r.busy {
		<-r.b.cpu
		r.busy = false
	}
}

// Close detaches the Reader: the others no longer wait for it.
func (r *CastReader) Close() {
	r.yield()
	b := r.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if r.closed {
		return
	}
	r.closed, r.cur = true, nil
	b.open--
	b.cond.Broadcast()
}

var _ Source = (*CastReader)(nil)
