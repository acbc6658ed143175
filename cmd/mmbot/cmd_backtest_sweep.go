package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/sweep"
	"github.com/mmbot/mmbot/configs"
)

// sweepKeysHelp documents the sweep keys (docs/backtesting.md repeats it).
const sweepKeysHelp = `  gamma             strategy.avellaneda.gamma and strategy.glft.gamma
  k                 strategy.avellaneda.k and strategy.glft.k
  a                 strategy.glft.a
  horizon           strategy.avellaneda.horizon (a duration)
  min_spread_ticks  strategy.avellaneda.min_spread_ticks (avellaneda and glft)
  max_spread        strategy.avellaneda.max_spread (avellaneda and glft)
  order_size        strategy.order_size, and the size of every band level
  levels            bands: the first N of strategy.bands.levels, or more, continuing
                    the last spacing and size; avellaneda, glft: strategy.avellaneda.levels
  offset            the first band level's offset; the others keep their spacing
  tolerance         strategy.price_tolerance_ticks
  cycle             strategy.cycle (a duration)
  model             strategy.model (bands, avellaneda, glft)
  rewards           strategy.rewards.enabled (true, false)
  fill_model        the fill model (queue, conservative, optimistic)
  latency_order, latency_cancel, latency_data
                    a latency distribution (50ms, uniform:20ms-80ms, lognormal:40ms,0.5)
  any.dotted.key    any configuration key, set as with --set`

// shortSweepKeys lists the keys of sweepKeysHelp without a dot.
func shortSweepKeys() []string {
	return []string{"gamma", "k", "a", "horizon", "min_spread_ticks", "max_spread", "order_size", "levels", "offset",
		"tolerance", "cycle", "model", "rewards", "fill_model", "latency_order", "latency_cancel", "latency_data"}
}

func checkSweepKey(k string) error {
	if strings.Contains(k, ".") || slices.Contains(shortSweepKeys(), k) {
		return nil
	}
	return fmt.Errorf("unknown sweep key %q: want one of %s, or a configuration key", k, strings.Join(shortSweepKeys(), ", "))
}

// replaySettings are the fill model's knobs of one run.
type replaySettings struct {
	matcher fillmodel.MatcherConfig
}

// baseReplaySettings takes the fill model and latencies from the flags,
// else from the [backtest] section.
func baseReplaySettings(cfg *configs.Config, bf *backtestFlags) (replaySettings, error) {
	var rs replaySettings
	mode := cfg.Backtest.FillModel
	if bf.fillModel != "" {
		mode = bf.fillModel
	}
	m, err := fillmodel.ParseMode(mode)
	if err != nil {
		return rs, usagef("--fill-model: %v", err)
	}
	rs.matcher.Mode = m
	for _, l := range []struct {
		flag, val string
		def       configs.Duration
		dst       *fillmodel.Dist
	}{
		{"--latency-order", bf.latOrder, cfg.Backtest.LatencyOrder, &rs.matcher.Latency.Order},
		{"--latency-cancel", bf.latCancel, cfg.Backtest.LatencyCancel, &rs.matcher.Latency.Cancel},
		{"--latency-data", bf.latData, cfg.Backtest.LatencyData, &rs.matcher.Latency.Data},
	} {
		*l.dst = fillmodel.Constant(l.def.Std())
		if l.val == "" {
			continue
		}
		d, err := fillmodel.ParseDist(l.val)
		if err != nil {
			return rs, usagef("%s: %v", l.flag, err)
		}
		*l.dst = d
	}
	return rs, nil
}

// applySweepKey applies one short sweep key to the configuration or the
// replay settings.
func applySweepKey(cfg *configs.Config, rs *replaySettings, key, val string) error {
	sc := &cfg.Strategy
	switch key {
	case "gamma", "k", "a":
		f, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return err
		}
		switch key {
		case "gamma":
			sc.Avellaneda.Gamma, sc.GLFT.Gamma = f, f
		case "k":
			sc.Avellaneda.K, sc.GLFT.K = f, f
		default:
			sc.GLFT.A = f
		}
	case "horizon", "cycle":
		d, err := time.ParseDuration(val)
		if err != nil {
			return err
		}
		if key == "horizon" {
			sc.Avellaneda.Horizon = configs.Duration(d)
		} else {
			sc.Cycle = configs.Duration(d)
		}
	case "min_spread_ticks", "tolerance", "levels":
		n, err := strconv.Atoi(val)
		if err != nil {
			return err
		}
		switch key {
		case "min_spread_ticks":
			sc.Avellaneda.MinSpreadTicks = n
		case "tolerance":
			sc.PriceToleranceTicks = n
		default:
			if sc.Model != "bands" {
				sc.Avellaneda.Levels = n // the ladder of avellaneda and glft
				return nil
			}
			lv, err := resizeBands(sc.Bands.Levels, n)
			if err != nil {
				return err
			}
			sc.Bands.Levels = lv
		}
	case "max_spread", "order_size", "offset":
		d, err := decimal.NewFromString(val)
		if err != nil {
			return err
		}
		switch key {
		case "max_spread":
			sc.Avellaneda.MaxSpread = d
		case "order_size":
			sc.OrderSize = d
			for i := range sc.Bands.Levels {
				sc.Bands.Levels[i].Size = d
			}
		default:
			if len(sc.Bands.Levels) == 0 {
				return fmt.Errorf("strategy.bands.levels is empty")
			}
			shift := d.Sub(sc.Bands.Levels[0].Offset)
			for i := range sc.Bands.Levels {
				sc.Bands.Levels[i].Offset = sc.Bands.Levels[i].Offset.Add(shift)
			}
		}
	case "model":
		sc.Model = val
	case "rewards":
		b, err := strconv.ParseBool(val)
		if err != nil {
			return err
		}
		sc.Rewards.Enabled = b
	case "fill_model":
		m, err := fillmodel.ParseMode(val)
		if err != nil {
			return err
		}
		rs.matcher.Mode = m
	case "latency_order", "latency_cancel", "latency_data":
		d, err := fillmodel.ParseDist(val)
		if err != nil {
			return err
		}
		switch key {
		case "latency_order":
			rs.matcher.Latency.Order = d
		case "latency_cancel":
			rs.matcher.Latency.Cancel = d
		default:
			rs.matcher.Latency.Data = d
		}
	default:
		return checkSweepKey(key)
	}
	return nil
}

// resizeBands returns the first n levels, or more: each added level is the
// last one's offset plus the last spacing (the first offset when there is
// one level), with the last size.
func resizeBands(lv []configs.BandLevel, n int) ([]configs.BandLevel, error) {
	if n < 1 {
		return nil, fmt.Errorf("levels must be at least 1")
	}
	if len(lv) == 0 {
		return nil, fmt.Errorf("strategy.bands.levels is empty")
	}
	out := slices.Clone(lv[:min(n, len(lv))])
	step := lv[0].Offset
	if k := len(lv); k > 1 {
		step = lv[k-1].Offset.Sub(lv[k-2].Offset)
	}
	for len(out) < n {
		last := out[len(out)-1]
		out = append(out, configs.BandLevel{Offset: last.Offset.Add(step), Size: last.Size})
	}
	return out, nil
}

// describeStrategy names the model and its main parameters for the
// reports, followed by the sweep's combination.
func describeStrategy(cfg *configs.Config, c sweep.Combo) string {
	sc := &cfg.Strategy
	var b strings.Builder
	b.WriteString(sc.Model)
	switch sc.Model {
	case "bands":
		for i, l := range sc.Bands.Levels {
			if i == 0 {
				b.WriteString(" levels")
			}
			fmt.Fprintf(&b, " %s×%s", l.Offset, l.Size)
		}
	case "avellaneda":
		a := &sc.Avellaneda
		fmt.Fprintf(&b, " gamma=%g k=%g size=%s min_spread_ticks=%d max_spread=%s", a.Gamma, a.K, sc.OrderSize, a.MinSpreadTicks, a.MaxSpread)
	case "glft":
		g := &sc.GLFT
		fmt.Fprintf(&b, " gamma=%g k=%g a=%g size=%s", g.Gamma, g.K, g.A, sc.OrderSize)
	}
	fmt.Fprintf(&b, " cycle=%s", sc.Cycle)
	if sc.Rewards.Enabled {
		b.WriteString(" rewards")
	}
	if s := c.String(); s != "" {
		b.WriteString(" [sweep " + s + "]")
	}
	return b.String()
}
