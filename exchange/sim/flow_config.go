package sim

import (
	"fmt"
	"math"
	"time"
)

// FlowConfig configures the simulated order flow of every open market
// (docs/simulator.md, "Order flow", has the model and its reference). A
// zero field takes the default named on it; for the rates and counts whose
// zero is the default, a negative value means none.
type FlowConfig struct {
	// Disabled turns the flow off: no value moves, no background makers,
	// no takers. Markets still close and resolve at their end date.
	Disabled bool

	// Volatility is the true value's standard deviation in logit space
	// per square root of an hour (default 0.3).
	Volatility float64
	// Drift is the true value's trend in logit space per hour (default 0:
	// none; negative trends down), the same for every market.
	Drift float64
	// JumpRate is the expected number of news jumps per market per hour
	// (default 0.5; negative: none); JumpSize their standard deviation in
	// logit space (default 0.7).
	JumpRate float64
	JumpSize float64

	// Lead is the time constant with which the public value the
	// background makers quote around catches up with the true value's
	// diffusion (default 5m; negative: no lead, the makers know the true
	// value): informed takers trade on where the public value is going.
	Lead time.Duration
	// Horizon is how far ahead the informed takers see the true value's
	// diffusion (default 0: they see today's true value). The diffusion is
	// drawn first as the informed see it; the true value that the public
	// value learns follows it with this time constant (it closes
	// 1 − exp(−t/Horizon) of the gap in t), so an informed trade's edge is
	// revealed to the makers only as time passes, not by the trade.
	Horizon time.Duration
	// InformedImpact is the fraction of the gap between the public and the
	// true value that the public value closes after each informed trade
	// (default 0.1; negative: none): the makers learn from the order flow,
	// so the price follows through after an informed trade.
	InformedImpact float64
	// NewsLag is the time constant with which the public value takes in a
	// jump (it also learns from the informed trades, InformedImpact), so
	// the background makers re-centre gradually after the informed sweep
	// (default 30s; negative: at once).
	NewsLag time.Duration
	// NewsLeak is how long before a jump becomes public the informed
	// takers know it (default 0: at once; at most 1h). Within it they trade
	// on the value after the jump (Kyle's insider before an announcement),
	// so a maker on the wrong side builds its position before the news
	// moves the price; at the jump the sweep follows and the public value
	// takes the jump in over NewsLag.
	NewsLeak time.Duration
	// NewsSweeps is the number of informed orders sent on each jump before
	// the makers re-centre (default 3; negative: none), spread evenly over
	// NewsSweepWindow (default 2s), each of NewsSweepSize shares (default
	// 1000) with its limit at the true value: a sweep of every level on
	// the wrong side of it.
	NewsSweeps      int
	NewsSweepWindow time.Duration
	NewsSweepSize   float64

	// TakerRate is the expected number of taker orders per market per
	// second (default 0.2; negative: none), arriving as a Poisson process.
	TakerRate float64
	// TakerSize is the median taker size in shares (default 10) and
	// TakerTail the tail index of the Pareto distribution sizes are drawn
	// from (default 1.3: a few shares to hundreds of thousands, capped at
	// 1,000,000 and at least the market's minimum).
	TakerSize float64
	TakerTail float64
	// Informed is the fraction of takers that trade on the true value
	// (default 0.3; negative: none); the others are noise takers.
	Informed float64
	// InformedPatience is how long an informed taker that finds no edge
	// waits for one before it gives up (default 1m; negative: it gives up
	// at once): informed flow is a share of trades, not of arrivals.
	InformedPatience time.Duration

	// MakerLevels is the number of background-maker levels per side
	// (default 5), MakerSize their size in shares (default 200),
	// MakerHalfSpread the distance of the best background level from the
	// public value (default 0.01), MakerSpacing the distance between levels
	// (default 0.01), MakerRequote how often the ladder moves at the latest
	// (default 5s; it also moves when the public value leaves it by more
	// than MakerHalfSpread).
	MakerLevels     int
	MakerSize       float64
	MakerHalfSpread float64
	MakerSpacing    float64
	MakerRequote    time.Duration
	// RewardMakers is the number of background orders per side, each of
	// the market's reward minimum size at half the reward band from the
	// public value, in a market that pays liquidity rewards (default 3;
	// negative: none): the reward pool is shared with them.
	RewardMakers int
}

func (f *FlowConfig) fill() error {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	defD := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	defI := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&f.Volatility, 0.3)
	def(&f.JumpRate, 0.5)
	def(&f.JumpSize, 0.7)
	def(&f.TakerRate, 0.2)
	def(&f.TakerSize, 10)
	def(&f.TakerTail, 1.3)
	def(&f.Informed, 0.3)
	def(&f.MakerSize, 200)
	def(&f.MakerHalfSpread, 0.01)
	def(&f.MakerSpacing, 0.01)
	def(&f.NewsSweepSize, 1000)
	defI(&f.MakerLevels, 5)
	defI(&f.NewsSweeps, 3)
	defI(&f.RewardMakers, 3)
	defD(&f.MakerRequote, 5*time.Second)
	defD(&f.Lead, 5*time.Minute)
	def(&f.InformedImpact, 0.1)
	defD(&f.NewsLag, 30*time.Second)
	defD(&f.NewsSweepWindow, 2*time.Second)
	defD(&f.InformedPatience, time.Minute)
	switch {
	case f.Volatility < 0, f.JumpSize < 0, f.TakerSize <= 0, f.NewsSweepSize <= 0:
		return fmt.Errorf("sim: flow rates and sizes must not be negative: %+v", *f)
	case math.IsNaN(f.Drift) || math.IsInf(f.Drift, 0) || math.Abs(f.Drift) > 100:
		return fmt.Errorf("sim: drift %v per hour outside [-100, 100]", f.Drift)
	case f.Informed > 1:
		return fmt.Errorf("sim: informed fraction %v outside [0, 1]", f.Informed)
	case !(f.TakerTail > 1 && f.TakerTail <= 10):
		return fmt.Errorf("sim: taker size tail index %v outside (1, 10]", f.TakerTail)
	case f.Lead > 24*time.Hour || f.NewsLag > 24*time.Hour:
		return fmt.Errorf("sim: lead %s and news lag %s must be at most 24h", f.Lead, f.NewsLag)
	case f.Horizon < 0 || f.Horizon > 24*time.Hour:
		return fmt.Errorf("sim: informed horizon %s outside [0, 24h]", f.Horizon)
	case f.InformedImpact > 1:
		return fmt.Errorf("sim: informed impact %v above 1", f.InformedImpact)
	case f.NewsLeak < 0 || f.NewsLeak > time.Hour:
		return fmt.Errorf("sim: news leak %s outside [0, 1h]", f.NewsLeak)
	case f.NewsSweepWindow < 0:
		return fmt.Errorf("sim: news sweep window %s is negative", f.NewsSweepWindow)
	case f.MakerLevels < 1 || f.MakerSize <= 0 || f.MakerHalfSpread <= 0 || f.MakerSpacing <= 0 || f.MakerRequote <= 0:
		return fmt.Errorf("sim: background maker settings must be positive: %+v", *f)
	}
	f.Lead, f.NewsLag, f.InformedPatience = max(0, f.Lead), max(0, f.NewsLag), max(0, f.InformedPatience)
	f.InformedImpact = max(0, f.InformedImpact)
	f.NewsSweeps, f.RewardMakers = max(0, f.NewsSweeps), max(0, f.RewardMakers)
	return nil
}
