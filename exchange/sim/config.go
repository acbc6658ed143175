package sim

import (
	"errors"
	"fmt"
	"io"
	"math"
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

	// RequestLogSize is how many requests RequestLog keeps (default 10000).
	RequestLogSize int

	// OnRequest, when set, is called with every request's record once it
	// has been answered (from the request's goroutine; it must be safe for
	// concurrent use). mmbot sim --request-log writes them to a file.
	OnRequest func(RequestRecord)
}

// FlowConfig configures the simulated order flow of every open market.
type FlowConfig struct {
	// Disabled turns the flow off: no fair-value moves, no background
	// makers, no takers. Markets still close and resolve at their end date.
	Disabled bool
	// Volatility is the fair value's standard deviation in logit space
	// per square root of an hour (default 0.3).
	Volatility float64
	// Drift is the fair value's trend in logit space per hour (default 0:
	// none; negative trends down), the same for every market.
	Drift float64
	// JumpRate is the expected number of jumps per market per hour
	// (default 0.5; negative means none); JumpSize their standard
	// deviation in logit space (default 0.7).
	JumpRate float64
	JumpSize float64
	// TakerRate is the expected number of taker orders per market per
	// second (default 0.2; negative means none), arriving as a Poisson
	// process.
	TakerRate float64
	// TakerSize is the mean taker size in shares (default 25; sizes are
	// exponentially distributed and at least the market's minimum).
	TakerSize float64
	// Informed is the fraction of takers that trade toward the fair value
	// (default 0.3; negative means none); the others buy or sell at random.
	Informed float64
	// MakerLevels is the number of background-maker levels per side
	// (default 5), MakerSize their size in shares (default 200),
	// MakerHalfSpread the distance of the best background level from the
	// fair value (default 0.02), MakerSpacing the distance between levels
	// (default 0.01), MakerRequote how often the ladder moves (default 5s).
	MakerLevels     int
	MakerSize       float64
	MakerHalfSpread float64
	MakerSpacing    float64
	MakerRequote    time.Duration
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

func (f *FlowConfig) fill() error {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&f.Volatility, 0.3)
	def(&f.JumpRate, 0.5)
	def(&f.JumpSize, 0.7)
	def(&f.TakerRate, 0.2)
	def(&f.TakerSize, 25)
	def(&f.Informed, 0.3)
	def(&f.MakerSize, 200)
	def(&f.MakerHalfSpread, 0.02)
	def(&f.MakerSpacing, 0.01)
	if f.MakerLevels == 0 {
		f.MakerLevels = 5
	}
	if f.MakerRequote == 0 {
		f.MakerRequote = 5 * time.Second
	}
	switch {
	case f.Volatility < 0, f.JumpSize < 0, f.TakerSize <= 0:
		return fmt.Errorf("sim: flow rates and sizes must not be negative: %+v", *f)
	case math.IsNaN(f.Drift) || math.IsInf(f.Drift, 0) || math.Abs(f.Drift) > 100:
		return fmt.Errorf("sim: drift %v per hour outside [-100, 100]", f.Drift)
	case f.Informed > 1:
		return fmt.Errorf("sim: informed fraction %v outside [0, 1]", f.Informed)
	case f.MakerLevels < 1 || f.MakerSize <= 0 || f.MakerHalfSpread <= 0 || f.MakerSpacing <= 0 || f.MakerRequote <= 0:
		return fmt.Errorf("sim: background maker settings must be positive: %+v", *f)
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
