package sim

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

// TestRequestLogOrdersAndHook: a POST /orders record carries the batch size
// and its arrival time, and OnRequest sees every record.
func TestRequestLogOrdersAndHook(t *testing.T) {
	var mu sync.Mutex
	var hooked []RequestRecord
	env := setup(t, 1, func(c *Config) {
		c.OnRequest = func(r RequestRecord) { mu.Lock(); hooked = append(hooked, r); mu.Unlock() }
	})
	a := env.accs[0]
	s := env.openMarket(false)
	before := time.Now()
	a.place(t, a.order(t, s, 0, exchange.Buy, "0.1", "5", exchange.GTC), a.order(t, s, 0, exchange.Buy, "0.11", "5", exchange.GTC))
	log := env.ex.RequestLog()
	last := log[len(log)-1]
	if last.Method != http.MethodPost || last.Path != "/clob/orders" || last.Orders != 2 || last.Status != 200 || last.Time.Before(before) {
		t.Fatalf("last record %+v, want POST /clob/orders with 2 orders, 200, after %v", last, before)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(hooked) != len(log) || hooked[len(hooked)-1] != last {
		t.Fatalf("OnRequest saw %d records, the log has %d", len(hooked), len(log))
	}
}
