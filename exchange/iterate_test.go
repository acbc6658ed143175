package exchange

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"
)

// cursorServer serves n items in pages of size, with base64-offset cursors,
// the last page's next_cursor being last ("LTE=" or "").
type cursorServer struct {
	mu      sync.Mutex
	n, size int
	last    string
	cursors []string
	item    func(i int) any
	bare    bool // answer a bare array (builder trades)
}

func (s *cursorServer) serve(w http.ResponseWriter, r *http.Request, _ []byte) {
	cur := r.URL.Query().Get("next_cursor")
	s.mu.Lock()
	s.cursors = append(s.cursors, cur)
	s.mu.Unlock()
	off, ok := DecodeCursor(cur)
	if !ok || off < 0 {
		reply(w, 400, `{"error":"bad cursor"}`)
		return
	}
	items := []any{}
	for i := int(off); i < s.n && i < int(off)+s.size; i++ {
		items = append(items, s.item(i))
	}
	if s.bare {
		b, _ := json.Marshal(items)
		reply(w, 200, string(b))
		return
	}
	next := EncodeCursor(off + int64(len(items)))
	if int(off)+len(items) >= s.n {
		next = s.last
	}
	b, _ := json.Marshal(map[string]any{"data": items, "next_cursor": next, "limit": s.size, "count": len(items)})
	reply(w, 200, string(b))
}

func collect[T any](t *testing.T, seq func(yield func(T, error) bool)) ([]T, error) {
	t.Helper()
	var out []T
	for v, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
	return out, nil
}

func TestCursorIterationToTheEnd(t *testing.T) {
	for _, last := range []string{EndCursor, ""} {
		e := setup(t)
		s := &cursorServer{n: 7, size: 3, last: last, item: func(i int) any { return map[string]any{"condition_id": fmt.Sprint(i)} }}
		e.handle("GET /clob/markets", s.serve)
		e.handle("GET /clob/sampling-markets", s.serve)
		e.handle("GET /clob/simplified-markets", s.serve)
		markets, err := collect(t, e.c.AllMarkets(e.ctx))
		if err != nil || len(markets) != 7 || markets[6].ConditionID != "6" {
			t.Fatalf("last %q: AllMarkets = %d items, %v", last, len(markets), err)
		}
		if want := []string{"MA==", EncodeCursor(3), EncodeCursor(6)}; fmt.Sprint(s.cursors) != fmt.Sprint(want) {
			t.Errorf("cursors sent %v, want %v", s.cursors, want)
		}
		sampling, err := collect(t, e.c.AllSamplingMarkets(e.ctx))
		if err != nil || len(sampling) != 7 {
			t.Errorf("AllSamplingMarkets = %d, %v", len(sampling), err)
		}
		simplified, err := collect(t, e.c.AllSimplifiedMarkets(e.ctx))
		if err != nil || len(simplified) != 7 {
			t.Errorf("AllSimplifiedMarkets = %d, %v", len(simplified), err)
		}
	}
}

func TestAllBuilderTradesDerivesCursors(t *testing.T) {
	e := setup(t)
	s := &cursorServer{n: 5, size: 2, bare: true, item: func(i int) any {
		return map[string]any{"id": strconv.Itoa(i), "status": "MATCHED", "match_time": "1717236000", "type": "TAKER"}
	}}
	e.handle("GET /clob/builder/trades", func(w http.ResponseWriter, r *http.Request, b []byte) {
		if r.URL.Query().Get("market") != "0xa" {
			t.Errorf("filter lost: %v", r.URL.Query())
		}
		s.serve(w, r, b)
	})
	trades, err := collect(t, e.c.AllBuilderTrades(e.ctx, BuilderTradesParams{Market: "0xa"}))
	if err != nil || len(trades) != 5 || trades[4].ID != "4" {
		t.Fatalf("AllBuilderTrades = %+v, %v", trades, err)
	}
	// pages at 0, 2, 4 and the empty page at 5 that ends the walk
	if want := []string{"MA==", "Mg==", "NA==", "NQ=="}; fmt.Sprint(s.cursors) != fmt.Sprint(want) {
		t.Errorf("cursors sent %v, want %v", s.cursors, want)
	}
}

func TestCursorLoopIsDetected(t *testing.T) {
	e := setup(t)
	e.handle("GET /clob/markets", func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		reply(w, 200, `{"data":[{"condition_id":"x"}],"next_cursor":"MQ=="}`)
	})
	items, err := collect(t, e.c.AllMarkets(e.ctx))
	if err == nil || len(items) != 2 {
		t.Fatalf("items %d, err %v: want 2 items then a loop error", len(items), err)
	}
}

// offsetServer serves n items by offset and limit.
type offsetServer struct {
	mu      sync.Mutex
	n       int
	offsets []string
	limits  []string
	item    func(i int) any
}

func (s *offsetServer) serve(w http.ResponseWriter, r *http.Request, _ []byte) {
	q := r.URL.Query()
	s.mu.Lock()
	s.offsets = append(s.offsets, q.Get("offset"))
	s.limits = append(s.limits, q.Get("limit"))
	s.mu.Unlock()
	off, _ := strconv.Atoi(q.Get("offset"))
	lim, _ := strconv.Atoi(q.Get("limit"))
	items := []any{}
	for i := off; i < s.n && i < off+lim; i++ {
		items = append(items, s.item(i))
	}
	b, _ := json.Marshal(items)
	reply(w, 200, string(b))
}

func TestOffsetIterationToTheEnd(t *testing.T) {
	id := func(i int) any { return map[string]any{"id": strconv.Itoa(i), "proxyWallet": strconv.Itoa(i)} }
	tests := []struct {
		name        string
		pattern     string
		n           int
		run         func(e *testEnv) (int, error)
		wantOffsets string
		wantLimit   string
	}{
		{"events", "GET /catalog/events", 250, func(e *testEnv) (int, error) {
			v, err := collect(t, e.c.AllEvents(e.ctx, EventsParams{Active: Ptr(true)}))
			return len(v), err
		}, "[0 100 200]", "100"},
		{"series exact multiple", "GET /catalog/series", 20, func(e *testEnv) (int, error) {
			v, err := collect(t, e.c.AllSeries(e.ctx, ListParams{Limit: Ptr(10)}))
			return len(v), err
		}, "[0 10 20]", "10"},
		{"tags from offset", "GET /catalog/tags", 30, func(e *testEnv) (int, error) {
			v, err := collect(t, e.c.AllTags(e.ctx, ListParams{Limit: Ptr(500), Offset: Ptr(5)}))
			return len(v), err
		}, "[5]", "500"},
		{"trades", "GET /data/trades", 120, func(e *testEnv) (int, error) {
			v, err := collect(t, e.c.AllTrades(e.ctx, TradesParams{Limit: Ptr(50)}))
			return len(v), err
		}, "[0 50 100]", "50"},
		{"trades stop at the offset bound", "GET /data/trades", 30000, func(e *testEnv) (int, error) {
			v, err := collect(t, e.c.AllTrades(e.ctx, TradesParams{Limit: Ptr(4000)}))
			return len(v), err
		}, "[0 4000 8000]", "4000"},
		{"trades offset bound reached exactly", "GET /data/trades", 30000, func(e *testEnv) (int, error) {
			v, err := collect(t, e.c.AllTrades(e.ctx, TradesParams{Limit: Ptr(5000)}))
			return len(v), err
		}, "[0 5000 10000]", "5000"},
		{"closed positions default page 50", "GET /data/closed-positions", 120, func(e *testEnv) (int, error) {
			v, err := collect(t, e.c.AllClosedPositions(e.ctx, ClosedPositionsParams{User: "0xu"}))
			return len(v), err
		}, "[0 50 100]", "50"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := setup(t)
			s := &offsetServer{n: tt.n, item: id}
			e.handle(tt.pattern, s.serve)
			got, err := tt.run(e)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(s.offsets) != tt.wantOffsets || s.limits[0] != tt.wantLimit {
				t.Errorf("offsets %v limit %s, want %s %s", s.offsets, s.limits[0], tt.wantOffsets, tt.wantLimit)
			}
			wantItems := 0
			for _, o := range s.offsets {
				off, _ := strconv.Atoi(o)
				lim, _ := strconv.Atoi(tt.wantLimit)
				wantItems += max(0, min(tt.n-off, lim))
			}
			if got != wantItems {
				t.Errorf("items = %d, want %d", got, wantItems)
			}
		})
	}
}

func TestIterationStops(t *testing.T) {
	e := setup(t)
	s := &offsetServer{n: 1000, item: func(i int) any { return map[string]any{"id": strconv.Itoa(i)} }}
	e.handle("GET /catalog/tags", s.serve)

	// break after the first item: no second request
	for range e.c.AllTags(e.ctx, ListParams{Limit: Ptr(10)}) {
		break
	}
	if len(s.offsets) != 1 {
		t.Errorf("break: %d requests", len(s.offsets))
	}

	// cancel mid-walk: the ctx error is yielded and the walk ends
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	n := 0
	var last error
	for _, err := range e.c.AllTags(ctx, ListParams{Limit: Ptr(10)}) {
		if err != nil {
			last = err
			break
		}
		n++
		if n == 15 {
			cancel()
		}
	}
	if !errors.Is(last, context.Canceled) || n != 15 {
		t.Errorf("cancel: %d items, err %v; want 15 then context.Canceled", n, last)
	}

	// a failed page yields its error once
	e.handle("GET /catalog/series", func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		reply(w, 404, `{"type":"not found error","error":"x"}`)
	})
	errs := 0
	for _, err := range e.c.AllSeries(e.ctx, ListParams{}) {
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("err = %v", err)
		}
		errs++
	}
	if errs != 1 {
		t.Errorf("%d errors yielded", errs)
	}

	// a page size of 0 would never advance
	for _, err := range e.c.AllTrades(e.ctx, TradesParams{Limit: Ptr(0)}) {
		if !errors.Is(err, ErrInvalidParam) {
			t.Errorf("limit 0: err = %v", err)
		}
	}
	for _, err := range e.c.AllEvents(e.ctx, EventsParams{Limit: Ptr(501)}) {
		if !errors.Is(err, ErrInvalidParam) {
			t.Errorf("limit 501: err = %v", err)
		}
	}
}
