package daemon

import (
	"strconv"
	"time"

	"github.com/mmbot/mmbot/strategy"
)

// The live markouts are measured by the loop (strategy.MarkoutTracker, one
// per market, fed by the loop at the end of each cycle; the same loop runs
// backtests and paper trading): each fill against its market's fair value
// (the value that marks the PnL: a spread-weighted mid of both tokens'
// books without our orders) 1 s, 10 s and 1 min after the loop found it.
// A markout is size × (fair − price) for a buy and size × (price − fair)
// for a sell, the fair value of NO being 1 − fair: positive when the price
// moved our way. It is taken at the first cycle at or after the fill's
// time + horizon whose snapshot has the market's fair value, so a horizon
// is rounded up to a cycle: with the default 1 s cycle the 1 s markout is
// the next cycle's. CycleReport.Markouts brings them here to be counted.

// horizonLabel is a horizon's metric label: whole seconds, "1s", "10s", "60s".
func horizonLabel(h time.Duration) string {
	return strconv.FormatFloat(h.Seconds(), 'f', -1, 64) + "s"
}

// markoutSums adds the markouts up per horizon: gains, losses (positive)
// and shares.
func markoutSums(ms []strategy.Markout) (gain, loss, shares [strategy.NumMarkoutHorizons]float64) {
	for _, mo := range ms {
		if mo.Horizon < 0 || mo.Horizon >= strategy.NumMarkoutHorizons {
			continue
		}
		shares[mo.Horizon] += mo.Fill.Size
		if mo.Value >= 0 {
			gain[mo.Horizon] += mo.Value
		} else {
			loss[mo.Horizon] -= mo.Value
		}
	}
	return gain, loss, shares
}
