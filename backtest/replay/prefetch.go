package replay

import (
	"errors"
	"sync"

	"github.com/mmbot/mmbot/backtest/recording"
)

// Prefetcher is a Source that reads another Source on its own goroutine,
// up to depth batches of batch events ahead, so that decoding a recording
// (gzip, JSON) runs on one core while the replay runs on another. Events
// come out in the same order, so a replay is the same with or without it.
// Close it when done (it stops the goroutine); the underlying Source is not
// used after Close returns.
//
// It copies the books it reads ahead (their Fixed levels) into memory of
// its own, reused batch after batch, so that it can read a Reader whose
// books are valid only until the next read (recording.Reader's
// FixedLevelsOnly); like the Reader's, a book it returns is valid until
// the next call to Next: a consumer that keeps one copies it.
type Prefetcher struct {
	ch   chan *prefetchBatch
	free chan *prefetchBatch
	cur  *prefetchBatch
	i    int
	err  error

	stop chan struct{}
	done chan struct{}
	once sync.Once
	// errAt is the error that ended the stream, sent after the last batch.
	errAt error
}

// Prefetch starts reading src ahead (batch: events per batch, default 256;
// depth: batches in flight, default 4).
func Prefetch(src Source, batch, depth int) *Prefetcher {
	if batch <= 0 {
		batch = 256
	}
	if depth <= 0 {
		depth = 4
	}
	p := &Prefetcher{ch: make(chan *prefetchBatch, depth), free: make(chan *prefetchBatch, depth+2),
		stop: make(chan struct{}), done: make(chan struct{})}
	go p.run(src, batch)
	return p
}

// prefetchBatch is a batch of events read ahead, and the copies of their books.
type prefetchBatch struct {
	evs   []recording.Event
	books recording.BookStore
}

// fill appends events read from src to the batch until it holds size, each
// book copied into the batch's store, and returns the error that ended it
// sooner (io.EOF at the end).
func (b *prefetchBatch) fill(src Source, size int) error {
	for len(b.evs) < size {
		e, err := src.Next()
		if err != nil {
			return err
		}
		if e.Kind == recording.KindBook {
			e.Book = b.books.Copy(e.Book)
		}
		b.evs = append(b.evs, e)
	}
	return nil
}

func (p *Prefetcher) run(src Source, size int) {
	defer close(p.done)
	defer close(p.ch)
	for {
		var buf *prefetchBatch
		select {
		case buf = <-p.free:
			buf.evs = buf.evs[:0]
			buf.books.Reset()
		default:
			buf = &prefetchBatch{evs: make([]recording.Event, 0, size)}
		}
		err := buf.fill(src, size)
		if err != nil {
			p.errAt = err // read by Next after the channel is closed
		}
		if len(buf.evs) > 0 {
			select {
			case p.ch <- buf:
			case <-p.stop:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// Next implements Source.
func (p *Prefetcher) Next() (recording.Event, error) {
	for p.cur == nil || p.i >= len(p.cur.evs) {
		if p.err != nil {
			return recording.Event{}, p.err
		}
		if p.cur != nil {
			clear(p.cur.evs)
			select {
			case p.free <- p.cur:
			default:
			}
			p.cur = nil
		}
		b, ok := <-p.ch
		if !ok {
			p.err = p.errAt // the goroutine has ended: safe to read
			if p.err == nil {
				p.err = errors.New("backtest: prefetcher closed")
			}
			return recording.Event{}, p.err
		}
		p.cur, p.i = b, 0
	}
	e := p.cur.evs[p.i]
	p.i++
	return e, nil
}

// Close stops the reading goroutine and waits for it.
func (p *Prefetcher) Close() {
	p.once.Do(func() { close(p.stop) })
	<-p.done
}

var _ Source = (*Prefetcher)(nil)
