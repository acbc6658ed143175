package sim

import (
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/sim/catalog"
	"github.com/mmbot/mmbot/signer"
)

// Config configures an Exchange. The zero value is usable: New fills the
// defaults documented on each field.
type Config struct {
	// Addr is the listen address (default 127.0.0.1:0). A non-loopback
	// address is refused unless AllowPublic is set.
	Addr        string
	AllowPublic bool

	// Seed makes the catalog, the flow and the fault draws reproducible.
	Seed uint64
	// Markets is the number of generated markets (default 20).
	Markets int
	// Catalog, when set, is used instead of generating one.
	Catalog *catalog.Catalog

	// Start is the clock's start (default: the wall clock at New,
	// truncated to the second). It is also the base of generated dates.
	Start time.Time
	// Manual selects the manual clock: the flow moves only in Advance.
	Manual bool
	// Step is the flow's time step (default 100ms).
	Step time.Duration
	// WallClock is the clock of authentication freshness and rate limits
	// (default time.Now).
	WallClock func() time.Time

	// Flow configures the simulated order flow.
	Flow FlowConfig

	// Domain is the EIP-712 domain orders are verified under (default
	// signer.DefaultConfig()).
	Domain signer.Config
	// AuthWindow is the accepted |SVC_TIMESTAMP - now| (default 30s).
	AuthWindow time.Duration
	// MaxBatch is the most orders one POST /orders may hold (default 15).
	MaxBatch int

	// Limits are the server-side rate caps (default exchange.DefaultLimits;
	// Fill is not used). NoRateLimits turns them off.
	Limits       *exchange.Limits
	NoRateLimits bool

	// DataAllowlist, when non-empty, restricts the data API to these
	// client IPs or CIDR prefixes; others get 403
	// "unauthorized: ip_not_allowlisted".
	DataAllowlist []string

	// Faults are injected faults (default none); SetFaults changes them.
	Faults Faults

	// Settlement, when its Delay is set, settles matches over time and
	// lets Faults.SettleFailRate fail a fraction of them (settlement.go).
	Settlement SettlementConfig

	// Rand is the source of generated keys and API credentials (default
	// crypto/rand).
	Rand io.Reader

	// OnTrade and OnBook, when set, are called after each change, outside
	// the exchange's lock, in the order the changes happened.
	OnTrade func(TradeEvent)
	OnBook  func(BookEvent)

	// StateFile, when set, keeps the exchange across restarts: New loads
	// the file when it exists (its catalog, seed, clock, accounts with
	// their keys and API credentials, balances, orders, trades and flow
	// replace Seed, Markets, Catalog and Start), and the state is saved
	// there atomically on Close and every StateEvery (default 30s;
	// negative: only on Close). See State and docs/simulator.md.
	StateFile  string
	StateEvery time.Duration

	// RequestLogSize is how many requests RequestLog keeps (default 10000).
	RequestLogSize int

	// OnRequest, when set, is called with every request's record once it
	// has been answered (from the request's goroutine; it must be safe for
	// concurrent use). mmbot sim --request-log writes them to a file.
	OnRequest func(RequestRecord)
}

// Faults are injected failures. Rates are fractions in [0, 1] of requests.
type Faults struct {
	ErrorRate     float64       // answered 500 {"error":"internal_error: injected fault"} before handling
	DBFailureRate float64       // answered 500 "internal_error: unexpected database failure" before handling
	DelayRate     float64       // delayed by Delay before handling
	Delay         time.Duration // default 2s when DelayRate > 0
	DropRate      float64       // handled, then the connection closes after half the response
	// Maintenance refuses POST /orders and DELETE /order with 503 while
	// MaintenanceFrom <= wall clock < MaintenanceUntil.
	MaintenanceFrom, MaintenanceUntil time.Time
	// MaintenanceStatus is the status the window answers: 503 (0, the
	// default: the exchange not ready, which a client waits out) or a 5xx
	// it counts as an error (500).
	MaintenanceStatus int
	// Stall holds the requests of these endpoints, each "METHOD /path"
	// relative to its area's base ("POST /books", "DELETE /order"), without
	// an answer until the client gives up, while StallFrom <= wall clock <
	// StallUntil (a zero StallUntil: until the faults change).
	Stall                 []string
	StallFrom, StallUntil time.Time
	// Garbage books: POST /books answers a corrupted book for every token
	// of the markets in GarbageMarkets (condition ids), and for any other
	// token with probability GarbageRate. GarbageKind is the corruption,
	// one of GarbageKinds; "" draws one at random per book. The exchange's
	// own state is untouched: only the answer is garbage.
	GarbageMarkets []string
	GarbageRate    float64
	GarbageKind    string
	// NotReady answers every request 503 {"error":"service not ready"}
	// with Retry-After: 1, before handling, as the live exchange does while
	// its matching engine restarts.
	NotReady bool
	// SettleFailRate is the fraction of matches whose settlement fails
	// (RETRYING, then FAILED and reverted); it needs Config.Settlement's
	// Delay (settlement.go).
	SettleFailRate float64
}

func (f Faults) validate() error {
	for _, r := range []float64{f.ErrorRate, f.DBFailureRate, f.DelayRate, f.DropRate, f.GarbageRate, f.SettleFailRate} {
		if !(r >= 0 && r <= 1) {
			return fmt.Errorf("sim: fault rate %v outside [0, 1]", r)
		}
	}
	if f.Delay < 0 {
		return fmt.Errorf("sim: fault delay %s is negative", f.Delay)
	}
	if f.MaintenanceStatus != 0 && (f.MaintenanceStatus < 500 || f.MaintenanceStatus > 599) {
		return fmt.Errorf("sim: maintenance status %d: want a 5xx", f.MaintenanceStatus)
	}
	for _, ep := range f.Stall {
		method, path, ok := strings.Cut(ep, " ")
		if !ok || method == "" || method != strings.ToUpper(method) || !strings.HasPrefix(path, "/") {
			return fmt.Errorf("sim: stalled endpoint %q: want \"METHOD /path\", e.g. \"POST /books\"", ep)
		}
	}
	if f.GarbageKind != "" && !slices.Contains(GarbageKinds, f.GarbageKind) {
		return fmt.Errorf("sim: garbage kind %q: want one of %s", f.GarbageKind, strings.Join(GarbageKinds, ", "))
	}
	return nil
}

// ErrPublicAddr is returned for a non-loopback listen address without
// AllowPublic.
var ErrPublicAddr = errors.New("sim: refusing a non-loopback listen address (set AllowPublic to allow it)")

func (c *Config) fill() error {
	if c.Addr == "" {
		c.Addr = "127.0.0.1:0"
	}
	if c.Markets == 0 {
		c.Markets = 20
	}
	if c.Markets < 1 {
		return fmt.Errorf("sim: markets %d must be at least 1", c.Markets)
	}
	if c.WallClock == nil {
		c.WallClock = time.Now
	}
	if c.Start.IsZero() {
		c.Start = c.WallClock().UTC().Truncate(time.Second)
	}
	if c.Step == 0 {
		c.Step = 100 * time.Millisecond
	}
	if err := c.Settlement.fill(); err != nil {
		return err
	}
	if c.Faults.SettleFailRate > 0 && c.Settlement.Delay <= 0 {
		return errors.New("sim: a settlement failure rate needs a settlement delay (Settlement.Delay)")
	}
	if c.Step < time.Millisecond {
		return fmt.Errorf("sim: step %s is below 1ms", c.Step)
	}
	if c.Domain == (signer.Config{}) {
		c.Domain = signer.DefaultConfig()
	}
	if c.AuthWindow == 0 {
		c.AuthWindow = 30 * time.Second
	}
	if c.MaxBatch == 0 {
		c.MaxBatch = 15
	}
	if c.MaxBatch < 1 {
		return fmt.Errorf("sim: max batch %d must be at least 1", c.MaxBatch)
	}
	if c.Limits == nil {
		l := exchange.DefaultLimits()
		c.Limits = &l
	}
	if err := c.Limits.Validate(); err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	if c.StateEvery == 0 {
		c.StateEvery = 30 * time.Second
	}
	if c.RequestLogSize == 0 {
		c.RequestLogSize = 10_000
	}
	if err := c.Faults.validate(); err != nil {
		return err
	}
	if err := c.Flow.fill(); err != nil {
		return err
	}
	if err := checkAddr(c.Addr, c.AllowPublic); err != nil {
		return err
	}
	return nil
}

// checkAddr refuses a listen address whose host is not a loopback IP or
// "localhost", unless public is allowed.
func checkAddr(addr string, public bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("sim: listen address %q: %w", addr, err)
	}
	if public {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%w: %q", ErrPublicAddr, addr)
	}
	return nil
}
