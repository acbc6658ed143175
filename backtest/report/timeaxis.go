package report

import (
	"math"
	"slices"
	"time"
)

// timeSteps are the candidate spacings of time-axis ticks, in seconds.
var timeSteps = [...]float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200,
	3 * 3600, 6 * 3600, 12 * 3600, 86400, 2 * 86400, 7 * 86400, 14 * 86400, 28 * 86400}

// timeTicks returns at most 7 round times (multiples of a step from
// timeSteps) within [lo, hi], in Unix seconds.
func timeTicks(lo, hi float64) []float64 {
	step := timeSteps[len(timeSteps)-1]
	for _, s := range timeSteps {
		if (hi-lo)/s <= 6 {
			step = s
			break
		}
	}
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi && len(out) < 50; v += step {
		out = append(out, v)
	}
	return out
}

// timeFormats are the tick label formats, coarsest first, with the
// smallest tick spacing (seconds) each can tell apart.
var timeFormats = [...]struct {
	layout string
	res    float64
}{
	{"01-02", 86400},
	{"15:04", 60},
	{"01-02 15:04", 60},
	{"15:04:05", 1},
	{"01-02 15:04:05", 1},
}

// timeLabels labels the ticks of a time axis (Unix seconds, UTC) with the
// coarsest format that resolves their spacing and gives every tick a
// label of its own: 30-second ticks show seconds, ticks a day apart the
// date, and ticks that cross midnight at a spacing "15:04" cannot tell
// apart get the date too.
func timeLabels(ticks []float64) []string {
	step := 1.0 // a lone tick gets the finest format
	if len(ticks) > 1 {
		step = math.Inf(1)
	}
	for i := 1; i < len(ticks); i++ {
		step = math.Min(step, ticks[i]-ticks[i-1])
	}
	var out []string
	for _, f := range timeFormats {
		if f.res > step {
			continue
		}
		out = out[:0]
		for _, v := range ticks {
			out = append(out, time.Unix(int64(v), 0).UTC().Format(f.layout))
		}
		if unique(out) {
			return out
		}
	}
	return out // whole seconds apart at the least: the finest format is unique
}

func unique(s []string) bool {
	c := slices.Clone(s)
	slices.Sort(c)
	return len(slices.Compact(c)) == len(s)
}
