package report

import (
	"math"
	"slices"
)

// bins is a histogram's binning: len(counts) equal bins over [lo, hi];
// values below lo are counted in the first bin and above hi in the last
// (clipped says how many).
type bins struct {
	lo, hi  float64
	counts  []int
	clipped int
}

// Histogram bounds: at least minBins and at most maxBins bars.
const (
	minBins = 5
	maxBins = 40
)

// histBins chooses the bins from the data: the range is the 1st to 99th
// percentile (a few far outliers no longer squeeze the bulk into two or
// three bars) and the width is Freedman–Diaconis's, 2·IQR/∛n, within
// [minBins, maxBins] bars. NaN and infinite values are left out.
func histBins(values []float64) bins {
	vs := make([]float64, 0, len(values))
	for _, v := range values {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return bins{}
	}
	slices.Sort(vs)
	q := func(p float64) float64 { // nearest-rank quantile
		return vs[min(len(vs)-1, int(math.Floor(p*float64(len(vs)-1)+0.5)))]
	}
	lo, hi := q(0.01), q(0.99)
	if len(vs) < 100 { // too few values for percentiles to mean anything
		lo, hi = vs[0], vs[len(vs)-1]
	}
	if hi == lo {
		lo, hi = lo-0.005, hi+0.005
	}
	n := maxBins
	if iqr := q(0.75) - q(0.25); iqr > 0 {
		width := 2 * iqr / math.Cbrt(float64(len(vs)))
		n = int(math.Ceil((hi - lo) / width))
	}
	n = min(max(n, minBins), maxBins)
	b := bins{lo: lo, hi: hi, counts: make([]int, n)}
	width := (hi - lo) / float64(n)
	for _, v := range vs {
		if v < lo || v > hi {
			b.clipped++
		}
		i := int((v - lo) / width)
		b.counts[min(max(i, 0), n-1)]++
	}
	return b
}
