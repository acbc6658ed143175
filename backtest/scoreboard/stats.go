package scoreboard

import "math"

// interval is a mean over seeds with the half-width of its 95% t-interval
// (NaN with fewer than two finite values).
type interval struct {
	mean, half float64
	n          int
}

// tInterval is the mean of the finite values of xs and the half-width of
// its two-sided 95% Student-t interval.
func tInterval(xs []float64) interval {
	var v []float64
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			v = append(v, x)
		}
	}
	iv := interval{mean: math.NaN(), half: math.NaN(), n: len(v)}
	if len(v) == 0 {
		return iv
	}
	var sum float64
	for _, x := range v {
		sum += x
	}
	iv.mean = sum / float64(len(v))
	if len(v) < 2 {
		return iv
	}
	var ss float64
	for _, x := range v {
		ss += (x - iv.mean) * (x - iv.mean)
	}
	s := math.Sqrt(ss / float64(len(v)-1)) // sample sd
	iv.half = tCrit(len(v)-1) * s / math.Sqrt(float64(len(v)))
	return iv
}

// lo and hi are the interval's ends.
func (iv interval) lo() float64 { return iv.mean - iv.half }
func (iv interval) hi() float64 { return iv.mean + iv.half }

// verdict is "won" when the interval lies above zero, "lost" below it,
// "tie" when it holds zero or is undefined.
func (iv interval) verdict() string {
	switch {
	case math.IsNaN(iv.half):
		return "tie"
	case iv.lo() > 0:
		return "won"
	case iv.hi() < 0:
		return "**lost**"
	}
	return "tie"
}

// tTable holds the 0.975 quantiles of Student's t for 1 to 30 degrees of
// freedom.
var tTable = [...]float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}

// tCrit is the 0.975 quantile of Student's t with df degrees of freedom
// (the normal 1.96 from 31 on, which is within 4% of the exact value).
func tCrit(df int) float64 {
	if df < 1 {
		return math.NaN()
	}
	if df <= len(tTable) {
		return tTable[df-1]
	}
	return 1.96
}

// paired is the element-wise difference a − b of two per-seed series (NaN
// where either is).
func paired(a, b []float64) []float64 {
	out := make([]float64, min(len(a), len(b)))
	for i := range out {
		out[i] = a[i] - b[i]
	}
	return out
}
