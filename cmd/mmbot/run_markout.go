package main

import (
	"strconv"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy"
	"github.com/mmbot/mmbot/strategy/loop"
)

// markoutHorizons are the horizons of the live markouts: the backtest's
// 10 s and 1 min (its 1 s is shorter than a live cycle).
var markoutHorizons = [...]time.Duration{10 * time.Second, time.Minute}

// horizonLabel is a horizon's metric label: whole seconds, "10s", "60s".
func horizonLabel(h time.Duration) string {
	return strconv.FormatFloat(h.Seconds(), 'f', -1, 64) + "s"
}

// markouts measures each fill against its market's fair value (the value
// that marks the PnL: a spread-weighted mid of both tokens' books without
// our orders) a horizon after the loop found the fill. A markout is
// size × (fair − price) for a buy and size × (price − fair) for a sell, the
// fair value of NO being 1 − fair: positive when the price moved our way.
// It is taken at the first cycle at or after the fill's time + horizon
// whose status has the market's fair value, so the horizon is rounded up to
// a cycle; a market gone from the status drops its pending markouts.
type markouts struct {
	pending [len(markoutHorizons)][]loop.Fill
}

// markout is one measured markout.
type markout struct {
	horizon int     // index into markoutHorizons
	value   float64 // collateral, positive when the fair value moved our way
	shares  float64
}

// add queues fills for every horizon.
func (mk *markouts) add(fills []loop.Fill) {
	for i := range mk.pending {
		mk.pending[i] = append(mk.pending[i], fills...)
	}
}

// due returns the markouts that came due at st's time and forgets them.
func (mk *markouts) due(st *loop.Status) []markout {
	byID := make(map[string]*loop.MarketStatus, len(st.Markets))
	for i := range st.Markets {
		byID[st.Markets[i].ConditionID] = &st.Markets[i]
	}
	var out []markout
	for i, h := range markoutHorizons {
		q, n := mk.pending[i], 0
		for _, f := range q {
			ms, known := byID[f.ConditionID]
			switch {
			case f.Time.Add(h).After(st.Time), known && !ms.HasFair:
				q[n] = f // not due yet, or no fair value to measure it against yet
				n++
			case known:
				out = append(out, markoutOf(i, f, ms.Fair))
			}
		}
		clear(q[n:])
		mk.pending[i] = q[:n]
	}
	return out
}

func markoutOf(horizon int, f loop.Fill, fair float64) markout {
	value := fair
	if f.Outcome == strategy.No {
		value = 1 - fair
	}
	move := value - f.Price.InexactFloat64()
	if f.Side == exchange.Sell {
		move = -move
	}
	size := f.Size.InexactFloat64()
	return markout{horizon: horizon, value: move * size, shares: size}
}
