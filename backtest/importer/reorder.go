package importer

import (
	"container/heap"
	"fmt"
	"time"

	"github.com/mmbot/mmbot/backtest/recording"
)

// reorder restores time order among events that arrive slightly out of
// order (exchange timestamps of different tokens interleave): it holds up to
// window events in a min-heap on (time, recording.SameTimeRank, arrival)
// and emits the earliest when full. So events of one time are written
// meta, trades, books, whatever order they arrived in (a book snapshot at t
// shows the trades at t: docs/data-format.md#time). An event that would
// have to go before one already written (older, or of the same time and
// token but of an earlier rank) is an error, so memory stays bounded by
// the window.
type reorder struct {
	h      eventHeap
	window int
	seq    uint64
	last   map[string]rankedTime // by token: the last event written
	lastT  time.Time             // the last event written, all tokens
	write  func(recording.Event) error
}

type rankedTime struct {
	t    time.Time
	rank int
}

type heapItem struct {
	t    time.Time
	rank int
	seq  uint64
	e    recording.Event
}

type eventHeap []heapItem

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	if !h[i].t.Equal(h[j].t) {
		return h[i].t.Before(h[j].t)
	}
	if h[i].rank != h[j].rank {
		return h[i].rank < h[j].rank
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
	t, rank := e.Time(), recording.SameTimeRank(e.Kind)
	if t.Before(r.lastT) {
		return fmt.Errorf("%w: %s at %s is older than an event already written (%s); raise the reorder window (now %d)",
			recording.ErrOutOfOrder, e.Kind, t.Format(time.RFC3339Nano), r.lastT.Format(time.RFC3339Nano), r.window)
	}
	if l, ok := r.last[e.TokenID()]; ok && t.Equal(l.t) && rank < l.rank {
		return fmt.Errorf("%w: %s of token %s at %s comes after an event of the same time written already, but goes before it (meta, trade, book); raise the reorder window (now %d)",
			recording.ErrOutOfOrder, e.Kind, e.TokenID(), t.Format(time.RFC3339Nano), r.window)
	}
	r.seq++
	heap.Push(&r.h, heapItem{t: t, rank: rank, seq: r.seq, e: e})
	if r.h.Len() > r.window {
		return r.pop()
	}
	return nil
}

func (r *reorder) pop() error {
	it := heap.Pop(&r.h).(heapItem)
	r.lastT = it.t
	r.last[it.e.TokenID()] = rankedTime{t: it.t, rank: it.rank}
	return r.write(it.e)
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
