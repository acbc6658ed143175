package fillmodel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// DistKind names a latency distribution.
type DistKind uint8

// Distributions of a Dist.
const (
	DistConstant  DistKind = iota // always A
	DistUniform                   // uniform on [A, B]
	DistLogNormal                 // median A, shape Sigma: A·exp(Sigma·N(0,1))
)

// MaxLatency caps a draw, so a long log-normal tail cannot push an order
// beyond the end of any sensible replay.
const MaxLatency = time.Hour

// Dist is a distribution of delays. The zero Dist is a constant zero delay.
type Dist struct {
	Kind  DistKind
	A, B  time.Duration
	Sigma float64
}

// Constant returns a Dist that always draws d.
func Constant(d time.Duration) Dist { return Dist{Kind: DistConstant, A: d} }

// Uniform returns a Dist uniform on [lo, hi].
func Uniform(lo, hi time.Duration) Dist { return Dist{Kind: DistUniform, A: lo, B: hi} }

// LogNormal returns a Dist with the given median and shape sigma (the
// standard deviation of the log).
func LogNormal(median time.Duration, sigma float64) Dist {
	return Dist{Kind: DistLogNormal, A: median, Sigma: sigma}
}

// Validate checks the parameters.
func (d Dist) Validate() error {
	switch d.Kind {
	case DistConstant:
		if d.A < 0 {
			return fmt.Errorf("latency %v: negative", d.A)
		}
	case DistUniform:
		if d.A < 0 || d.B < d.A {
			return fmt.Errorf("latency uniform [%v, %v]: want 0 <= lo <= hi", d.A, d.B)
		}
	case DistLogNormal:
		if d.A <= 0 || d.Sigma < 0 || math.IsNaN(d.Sigma) || d.Sigma > 10 {
			return fmt.Errorf("latency lognormal (median %v, sigma %g): want median > 0 and 0 <= sigma <= 10", d.A, d.Sigma)
		}
	default:
		return fmt.Errorf("latency: unknown distribution %d", d.Kind)
	}
	return nil
}

// Sample draws one delay from r. An invalid Dist draws 0.
func (d Dist) Sample(r *rand.Rand) time.Duration {
	var v time.Duration
	switch d.Kind {
	case DistConstant:
		v = d.A
	case DistUniform:
		if d.B > d.A {
			v = d.A + time.Duration(r.Int64N(int64(d.B-d.A)+1))
		} else {
			v = d.A
		}
	case DistLogNormal:
		f := float64(d.A) * math.Exp(d.Sigma*r.NormFloat64())
		if f > float64(MaxLatency) {
			f = float64(MaxLatency)
		}
		v = time.Duration(f)
	}
	return min(max(v, 0), MaxLatency)
}

// String formats d in the form ParseDist reads: "50ms",
// "uniform:20ms-80ms", "lognormal:40ms,0.5".
func (d Dist) String() string {
	switch d.Kind {
	case DistUniform:
		return "uniform:" + d.A.String() + "-" + d.B.String()
	case DistLogNormal:
		return "lognormal:" + d.A.String() + "," + strconv.FormatFloat(d.Sigma, 'g', -1, 64)
	}
	return d.A.String()
}

// ParseDist parses "50ms" (constant), "uniform:20ms-80ms" or
// "lognormal:40ms,0.5" (median, sigma).
func ParseDist(s string) (Dist, error) {
	kind, args, ok := strings.Cut(strings.TrimSpace(s), ":")
	var d Dist
	var err error
	switch {
	case !ok:
		var v time.Duration
		v, err = time.ParseDuration(kind)
		d = Constant(v)
	case kind == "uniform":
		lo, hi, ok2 := strings.Cut(args, "-")
		if !ok2 {
			return Dist{}, fmt.Errorf("latency %q: want uniform:LO-HI", s)
		}
		var a, b time.Duration
		if a, err = time.ParseDuration(lo); err == nil {
			b, err = time.ParseDuration(hi)
		}
		d = Uniform(a, b)
	case kind == "lognormal":
		med, sig, ok2 := strings.Cut(args, ",")
		if !ok2 {
			return Dist{}, fmt.Errorf("latency %q: want lognormal:MEDIAN,SIGMA", s)
		}
		var a time.Duration
		var sg float64
		if a, err = time.ParseDuration(med); err == nil {
			sg, err = strconv.ParseFloat(sig, 64)
		}
		d = LogNormal(a, sg)
	default:
		return Dist{}, fmt.Errorf("latency %q: unknown distribution %q", s, kind)
	}
	if err != nil {
		return Dist{}, fmt.Errorf("latency %q: %w", s, err)
	}
	return d, d.Validate()
}

// Latency is the delay model of a simulated venue: Order is from sending a
// placement to the order resting in the book, Cancel from sending a cancel
// to it taking effect (fills in between still happen), Data from an
// exchange event to the strategy seeing it (applied by the replay venue).
type Latency struct {
	Order, Cancel, Data Dist
}

// Validate checks the three distributions.
func (l Latency) Validate() error {
	for _, d := range []Dist{l.Order, l.Cancel, l.Data} {
		if err := d.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// String describes the model for reports.
func (l Latency) String() string {
	return "order " + l.Order.String() + ", cancel " + l.Cancel.String() + ", data " + l.Data.String()
}
