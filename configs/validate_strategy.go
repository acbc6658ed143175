package configs

import (
	"strconv"
	"strings"
	"time"
)

func (m Markets) validate(v *validator) {
	seen := map[string]bool{}
	for _, id := range m.ConditionIDs {
		v.check(isBytes32(id), "markets.condition_ids", id, "each must be a condition id: 0x + 64 hex digits")
		v.check(!seen[strings.ToLower(id)], "markets.condition_ids", id, "listed twice")
		seen[strings.ToLower(id)] = true
	}
	for _, s := range m.Slugs {
		v.check(s != "" && !strings.ContainsAny(s, " \t\r\n/"), "markets.slugs", s, "each must be a non-empty slug without spaces or /")
	}
	a := m.Auto
	v.check(a.MaxMarkets >= 1 && a.MaxMarkets <= 1000, "markets.auto.max_markets", a.MaxMarkets, "must be in 1..1000")
	v.check(!a.MinLiquidity.IsNegative(), "markets.auto.min_liquidity", a.MinLiquidity, "must be >= 0")
	for _, t := range a.Tags {
		v.check(strings.TrimSpace(t) != "", "markets.auto.tags", a.Tags, "tags must not be empty strings")
	}
}

func (s Strategy) validate(v *validator, r Risk) {
	v.check(oneOf(s.Model, "bands", "avellaneda", "glft", "touch", "naive"), "strategy.model", s.Model, "must be bands, avellaneda, glft, touch or naive")
	v.check(!s.Touch.SkewShares.IsNegative(), "strategy.touch.skew_shares", s.Touch.SkewShares, "must be >= 0")
	v.check(s.Touch.MaxSkewTicks >= 0 && s.Touch.MaxSkewTicks <= 1000, "strategy.touch.max_skew_ticks", s.Touch.MaxSkewTicks, "must be in [0, 1000]")
	v.check(s.Cycle > 0, "strategy.cycle", s.Cycle, "must be > 0")
	v.check(s.OrderSize.IsPositive(), "strategy.order_size", s.OrderSize, "must be > 0")
	v.check(s.OrderSize.LessThanOrEqual(r.MaxOrderSize), "strategy.order_size", s.OrderSize, "must be <= risk.max_order_size (%s)", r.MaxOrderSize)
	v.check(finite(s.OrderReadShare) && s.OrderReadShare > 0 && s.OrderReadShare <= 1, "strategy.order_read_share", s.OrderReadShare, "must be in (0, 1]")
	v.check(s.PriceToleranceTicks >= 0, "strategy.price_tolerance_ticks", s.PriceToleranceTicks, "must be >= 0")
	v.check(!s.SizeTolerance.IsNegative() && s.SizeTolerance.LessThanOrEqual(one), "strategy.size_tolerance", s.SizeTolerance, "must be in [0, 1]")

	levels := s.Bands.Levels
	v.check(s.Model != "bands" || len(levels) > 0, "strategy.bands.levels", levels, "strategy.model = \"bands\" needs at least one level")
	for i, l := range levels {
		key := "strategy.bands.levels[" + strconv.Itoa(i) + "]"
		v.check(l.Offset.IsPositive() && l.Offset.LessThan(one), key+".offset", l.Offset, "must be in (0, 1)")
		v.check(i == 0 || l.Offset.GreaterThan(levels[i-1].Offset), key+".offset", l.Offset, "offsets must increase from level to level")
		v.check(l.Size.IsPositive(), key+".size", l.Size, "must be > 0")
		v.check(l.Size.LessThanOrEqual(r.MaxOrderSize), key+".size", l.Size, "must be <= risk.max_order_size (%s)", r.MaxOrderSize)
	}

	a := s.Avellaneda
	v.check(finite(a.Gamma) && a.Gamma > 0, "strategy.avellaneda.gamma", a.Gamma, "must be > 0")
	v.check(finite(a.K) && a.K > 0, "strategy.avellaneda.k", a.K, "must be > 0")
	v.check(a.Horizon > 0, "strategy.avellaneda.horizon", a.Horizon, "must be > 0")
	v.check(a.VolHalflife > 0, "strategy.avellaneda.vol_halflife", a.VolHalflife, "must be > 0")
	v.check(a.MinSpreadTicks >= 0, "strategy.avellaneda.min_spread_ticks", a.MinSpreadTicks, "must be >= 0")
	v.check(a.MaxSpread.IsPositive() && a.MaxSpread.LessThan(one), "strategy.avellaneda.max_spread", a.MaxSpread, "must be in (0, 1)")
	v.check(a.Levels >= 1 && a.Levels <= 10, "strategy.avellaneda.levels", a.Levels, "must be 1 to 10")
	v.check(finite(a.LevelSpacing) && a.LevelSpacing > 0 && a.LevelSpacing <= 2, "strategy.avellaneda.level_spacing", a.LevelSpacing, "must be in (0, 2] (logit units)")

	g := s.GLFT
	v.check(finite(g.Gamma) && g.Gamma > 0, "strategy.glft.gamma", g.Gamma, "must be > 0")
	v.check(finite(g.K) && g.K > 0, "strategy.glft.k", g.K, "must be > 0")
	v.check(finite(g.A) && g.A > 0, "strategy.glft.a", g.A, "must be > 0")

	e := s.EndDate
	v.check(e.Stop >= 0, "strategy.end_date.stop", e.Stop, "must be >= 0")
	v.check(e.ReduceOnly >= e.Stop, "strategy.end_date.reduce_only", e.ReduceOnly, "must be >= strategy.end_date.stop (%s)", e.Stop)
	v.check(e.Taper >= e.ReduceOnly, "strategy.end_date.taper", e.Taper, "must be >= strategy.end_date.reduce_only (%s)", e.ReduceOnly)

	s.Adverse.validate(v)
	s.Rewards.validate(v)

	gd := s.Guard
	v.check(gd.Period > 0, "strategy.guard.period", gd.Period, "must be > 0")
	v.check(gd.MaxCycleGap > gd.Period, "strategy.guard.max_cycle_gap", gd.MaxCycleGap, "must be > strategy.guard.period (%s)", gd.Period)
	// max_cycle_gap >= 2 × strategy.cycle is checked by mmbot run: backtests
	// (and their sweeps over strategy.cycle) run no guard.
}

func (a Adverse) validate(v *validator) {
	for _, f := range []struct {
		key string
		v   float64
	}{{"backoff_ticks", a.BackoffTicks}, {"jump_k", a.JumpK}, {"jump_min_ticks", a.JumpMinTicks}, {"markout_threshold", a.MarkoutThreshold},
		{"widen_ticks", a.WidenTicks}, {"widen_multiple", a.WidenMultiple}, {"widen_cap_ticks", a.WidenCapTicks},
		{"flow_ticks", a.FlowTicks}} {
		v.check(finite(f.v) && f.v >= 0, "strategy.adverse."+f.key, f.v, "must be >= 0")
	}
	for _, f := range []struct {
		key string
		v   Duration
	}{{"backoff_for", a.BackoffFor}, {"pause_for", a.PauseFor}, {"through_cooling", a.ThroughCooling}, {"jump_cooling", a.JumpCooling},
		{"flow_window", a.FlowWindow}} {
		v.check(f.v >= 0 && f.v.Std() <= time.Hour, "strategy.adverse."+f.key, f.v, "must be in [0, 1h]")
	}
	v.check(a.BackoffTicks == 0 || a.BackoffFor > 0, "strategy.adverse.backoff_for", a.BackoffFor, "must be > 0 when backoff_ticks is set")
	v.check(a.PauseFor == 0 || (finite(a.PauseFraction) && a.PauseFraction > 0 && a.PauseFraction <= 1),
		"strategy.adverse.pause_fraction", a.PauseFraction, "must be in (0, 1] when pause_for is set")
	v.check(a.MarkoutFills >= 0 && a.MarkoutFills <= 256, "strategy.adverse.markout_fills", a.MarkoutFills, "must be in [0, 256]")
	v.check(finite(a.FlowThreshold) && a.FlowThreshold >= 0 && a.FlowThreshold < 1, "strategy.adverse.flow_threshold", a.FlowThreshold, "must be in [0, 1)")
	v.check(a.FlowMinPrints >= 0 && a.FlowMinPrints <= 256, "strategy.adverse.flow_min_prints", a.FlowMinPrints, "must be in [0, 256]")
	h := a.MarkoutHorizon.Std()
	v.check(a.MarkoutFills == 0 || h == time.Second || h == 10*time.Second || h == time.Minute,
		"strategy.adverse.markout_horizon", a.MarkoutHorizon, "must be 1s, 10s or 60s (the measured horizons)")
}

func (r Rewards) validate(v *validator) {
	if !r.Enabled || r.Always {
		return
	}
	h := r.MarkoutHorizon.Std()
	v.check(h == time.Second || h == 10*time.Second || h == time.Minute,
		"strategy.rewards.markout_horizon", r.MarkoutHorizon, "must be 1s, 10s or 60s (the measured horizons)")
	v.check(r.MarkoutFills >= 1 && r.MarkoutFills <= 256, "strategy.rewards.markout_fills", r.MarkoutFills, "must be in [1, 256]")
	v.check(r.Hold >= 0, "strategy.rewards.hold", r.Hold, "must be >= 0")
}
