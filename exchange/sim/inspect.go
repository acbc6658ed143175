package sim

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/sim/engine"
)

// Test inspection: read-only views of an account's live orders, and a
// handler wrapper that counts every order submission by order hash, so an
// end-to-end test can prove that a client never sent the same order twice.

// OpenOrders returns the ids (order hashes) of the live orders of the
// account with the given API key, sorted; nil for an unknown key.
func (e *Exchange) OpenOrders(apiKey string) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	a, ok := e.accts.byKey[apiKey]
	if !ok {
		return nil
	}
	var out []string
	e.eng.OpenOrders(a.id(), func(o *engine.Order) {
		if o.Status == engine.Live {
			out = append(out, o.ID)
		}
	})
	sort.Strings(out)
	return out
}

// OpenOrdersByMarket counts the live orders of the account with the given
// API key per market (condition id as the catalog spells it).
func (e *Exchange) OpenOrdersByMarket(apiKey string) map[string]int {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := map[string]int{}
	a, ok := e.accts.byKey[apiKey]
	if !ok {
		return out
	}
	e.eng.OpenOrders(a.id(), func(o *engine.Order) {
		if o.Status != engine.Live {
			return
		}
		if s := e.byCond[o.Market]; s != nil {
			out[s.m.ConditionID]++
		}
	})
	return out
}

// SubmittedBatch is one POST /clob/orders request as the tracker saw it.
type SubmittedBatch struct {
	Time   time.Time // Config.WallClock when the request arrived
	Orders int       // placement items in the body (0 when it did not decode)
}

// SubmissionTracker is an http.Handler that counts, per order hash, how
// many times an order arrived in a POST /clob/orders body, then hands the
// request on unchanged. It sees every request, including those the fault
// injection or the rate limiter later refuse, so a count above one means
// the client sent that signed order again. Build it with TrackSubmissions;
// it is safe for concurrent use.
type SubmissionTracker struct {
	e    *Exchange
	next http.Handler

	mu      sync.Mutex
	counts  map[string]int
	batches []SubmittedBatch
	invalid int
}

// TrackSubmissions wraps next (normally e.Handler()) with a submission
// counter. Serve the tracker instead of next, for instance with
// httptest.NewServer, to use it.
func (e *Exchange) TrackSubmissions(next http.Handler) *SubmissionTracker {
	return &SubmissionTracker{e: e, next: next, counts: map[string]int{}}
}

// ServeHTTP counts the orders of a POST /clob/orders body, then serves the
// request with the wrapped handler.
func (s *SubmissionTracker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && r.URL.Path == "/clob/orders" {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBody+1))
		_ = r.Body.Close()
		r.Body = io.NopCloser(bytes.NewReader(body))
		if err == nil {
			s.count(body)
		}
	}
	s.next.ServeHTTP(w, r)
}

func (s *SubmissionTracker) count(body []byte) {
	now := s.e.cfg.WallClock()
	var ws []placementWire
	err := json.Unmarshal(body, &ws)
	items := placementItems(ws)
	if err != nil {
		s.mu.Lock()
		s.batches = append(s.batches, SubmittedBatch{Time: now})
		s.invalid++
		s.mu.Unlock()
		return
	}
	hashes := make([]string, 0, len(items))
	invalid := 0
	for i := range items {
		if h, ok := s.e.hashOf(items[i].Order); ok {
			hashes = append(hashes, h)
		} else {
			invalid++
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.batches = append(s.batches, SubmittedBatch{Time: now, Orders: len(items)})
	s.invalid += invalid
	for _, h := range hashes {
		s.counts[h]++
	}
}

// hashOf is the order hash (the exchange's order id) of o, if its token is
// known and its fields decode.
func (e *Exchange) hashOf(o exchange.SignedOrder) (string, bool) {
	e.mu.Lock()
	st, ok := e.byToken[o.TokenID]
	e.mu.Unlock()
	if !ok {
		return "", false
	}
	h, err := e.verifier.OrderHash(o, st.m.NegRisk)
	if err != nil {
		return "", false
	}
	return strings.ToLower(h), true
}

// Count returns how many times the order with this hash was submitted.
func (s *SubmissionTracker) Count(hash string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[strings.ToLower(hash)]
}

// Distinct returns the number of distinct order hashes submitted.
func (s *SubmissionTracker) Distinct() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.counts)
}

// Duplicates returns the hashes submitted more than once, with their counts.
func (s *SubmissionTracker) Duplicates() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for h, n := range s.counts {
		if n > 1 {
			out[h] = n
		}
	}
	return out
}

// Batches returns every POST /clob/orders request seen, oldest first.
func (s *SubmissionTracker) Batches() []SubmittedBatch {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]SubmittedBatch(nil), s.batches...)
}

// Invalid returns how many submitted items (or undecodable bodies) had no
// order hash.
func (s *SubmissionTracker) Invalid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.invalid
}
