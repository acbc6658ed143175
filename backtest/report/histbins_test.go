package report

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Markouts are mostly within a few ticks with a few far outliers: equal
// bins over the whole range put 99% of the fills in two or three bars. The
// bins are chosen from the data instead (the 1st to 99th percentile,
// Freedman–Diaconis widths), so the bulk is spread over many bars, and
// every value is still counted (outliers in the end bins).
func TestHistogramBinsSpreadTheBulk(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var values []float64
	for range 990 {
		values = append(values, math.Round(r.NormFloat64()*0.01/0.005)*0.005) // half-tick grid
	}
	for range 10 {
		values = append(values, 0.5*float64(r.IntN(2)*2-1))
	}
	values = append(values, math.NaN(), math.Inf(1))
	b := histBins(values)
	total := 0
	for _, c := range b.counts {
		total += c
	}
	if total != 1000 {
		t.Fatalf("%d values counted, want the 1000 finite ones", total)
	}
	sorted := slices.Clone(b.counts)
	slices.Sort(sorted)
	top3 := sorted[len(sorted)-1] + sorted[len(sorted)-2] + sorted[len(sorted)-3]
	if len(b.counts) < 5 || float64(top3) > 0.75*float64(total) {
		t.Errorf("%d bins over [%g, %g], the three fullest hold %d of %d: %v", len(b.counts), b.lo, b.hi, top3, total, b.counts)
	}
	if b.clipped < 10 || b.clipped > 20 { // the outliers, and at most 2% in all
		t.Errorf("%d values outside the range shown, want the 10 outliers and at most 20 in all", b.clipped)
	}
}

func TestHistogramBinsEdgeCases(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values []float64
	}{
		{"one value", []float64{0.01}},
		{"all equal", []float64{0, 0, 0, 0}},
		{"two values", []float64{-0.01, 0.01}},
		{"mostly zero", append(make([]float64, 500), 0.01, -0.01, 0.02)},
	} {
		b := histBins(tc.values)
		total := 0
		for _, c := range b.counts {
			total += c
		}
		if total != len(tc.values) || len(b.counts) == 0 || !(b.hi > b.lo) {
			t.Errorf("%s: %d bins over [%g, %g], %d counted of %d", tc.name, len(b.counts), b.lo, b.hi, total, len(tc.values))
		}
	}
	if b := histBins([]float64{math.NaN()}); len(b.counts) != 0 {
		t.Errorf("no finite value: %d bins", len(b.counts))
	}
}
