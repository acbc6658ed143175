package importer

import (
	"container/heap"
	"fmt"
	"time"

	"github.com/mmbot/mmbot/backtest/recording"
)

// reorder restores time order among events that arrive slightly out of
// order (exchange timestamps of different tokens interleave): it holds up to
// window events in a min-heap on (Time, arrival) and emits the earliest when
// full. An event older than one already emitted is an error, so memory stays
// bounded by the window.
type reorder struct {
	h      eventHeap
	window int
	seq    uint64
	last   time.Time
	sink   recording.EventSink
}

type heapItem struct {
	t   time.Time
	seq uint64
	e   recording.Event
}

type eventHeap []heapItem

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	if !h[i].t.Equal(h[j].t) {
		return h[i].t.Before(h[j].t)
	}
	return h[i].seq < h[j].seq
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(heapItem)) }
func (h *eventHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	old[len(old)-1] = heapItem{}
	*h = old[:len(old)-1]
	return it
}

func (r *reorder) push(e recording.Event) error {
	t := e.Time()
	if t.Before(r.last) {
		return fmt.Errorf("%w: %s at %s is older than an event already written (%s); raise the reorder window (now %d)",
			recording.ErrOutOfOrder, e.Kind, t.Format(time.RFC3339Nano), r.last.Format(time.RFC3339Nano), r.window)
	}
	r.seq++
	heap.Push(&r.h, heapItem{t: t, seq: r.seq, e: e})
	if r.h.Len() > r.window {
		return r.pop()
	}
	return nil
}

func (r *reorder) pop() error {
	it := heap.Pop(&r.h).(heapItem)
	r.last = it.t
	return r.sink.Write(it.e)
}

// flush emits every held event.
func (r *reorder) flush() error {
	for r.h.Len() > 0 {
		if err := r.pop(); err != nil {
			return err
		}
	}
	return nil
}
