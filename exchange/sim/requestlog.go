package sim

import (
	"net/http"
	"sync"
	"time"
)

// RequestRecord is one served request.
type RequestRecord struct {
	Method string
	Path   string    // full path, e.g. /clob/orders
	Time   time.Time // Config.WallClock when the request arrived
	Status int
	// Orders is the number of placement items of a POST /clob/orders body
	// that decoded (what the order caps charge); 0 for other requests.
	Orders int
}

// ordersKey is the request context key of the *int where a POST /orders
// handler reports its batch size to the request log.
type ordersKey struct{}

// noteOrders reports the batch size of a POST /orders request.
func noteOrders(r *http.Request, n int) {
	if p, ok := r.Context().Value(ordersKey{}).(*int); ok {
		*p = n
	}
}

// requestLog is a ring of the latest requests; it has its own lock.
type requestLog struct {
	mu   sync.Mutex
	buf  []RequestRecord
	next int
	full bool
}

func newRequestLog(n int) *requestLog { return &requestLog{buf: make([]RequestRecord, n)} }

func (l *requestLog) add(r RequestRecord) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf[l.next] = r
	l.next++
	if l.next == len(l.buf) {
		l.next, l.full = 0, true
	}
}

// RequestLog returns the latest requests (at most Config.RequestLogSize),
// oldest first.
func (e *Exchange) RequestLog() []RequestRecord {
	l := e.reqlog
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.full {
		return append([]RequestRecord(nil), l.buf[:l.next]...)
	}
	out := make([]RequestRecord, 0, len(l.buf))
	out = append(out, l.buf[l.next:]...)
	return append(out, l.buf[:l.next]...)
}
