package scoreboard

import (
	"math"
	"testing"
)

func TestTInterval(t *testing.T) {
	iv := tInterval([]float64{1, 2, 3, 4, 5})
	// mean 3, sample sd sqrt(2.5), t(4) = 2.776: half = 2.776 × 1.5811 / sqrt(5)
	if iv.mean != 3 || math.Abs(iv.half-2.776*math.Sqrt(2.5)/math.Sqrt(5)) > 1e-12 || iv.n != 5 {
		t.Fatalf("%+v", iv)
	}
	if iv.verdict() != "won" {
		t.Fatalf("1..5: %s", iv.verdict())
	}
	for _, c := range []struct {
		xs   []float64
		want string
	}{
		{[]float64{-1, -2, -3, -4, -5}, "**lost**"},
		{[]float64{-1, 1, -2, 2}, "tie"},
		{[]float64{7}, "tie"}, // one seed: no interval
		{[]float64{1, math.NaN(), 1.1, 0.9}, "won"},
		{nil, "tie"},
	} {
		if got := tInterval(c.xs).verdict(); got != c.want {
			t.Errorf("%v: %s, want %s", c.xs, got, c.want)
		}
	}
	if tCrit(100) != 1.96 || tCrit(1) != 12.706 || !math.IsNaN(tCrit(0)) {
		t.Fatal("t quantiles")
	}
	// Pairing removes what the seeds share: two series far apart in level
	// but with a constant difference win on the difference.
	a, b := []float64{10, 50, -30, 80, 5}, []float64{9, 49, -31, 79, 4}
	if tInterval(a).verdict() != "tie" || tInterval(paired(a, b)).verdict() != "won" {
		t.Fatal("pairing by seed")
	}
}
