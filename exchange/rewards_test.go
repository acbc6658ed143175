package exchange

import (
	"math"
	"testing"
)

func fx(t *testing.T, s string) Fixed {
	t.Helper()
	f, err := ParseFixed(s)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Scores computed by hand: v = 0.03, min size 20.
func TestRewardScoring(t *testing.T) {
	type ord struct {
		price, size string
		bid         bool
	}
	cases := []struct {
		name       string
		mid        float64
		orders     []ord
		one, two   float64
		qmin       float64
		wantSingle bool
	}{
		// bid 0.49×100: s = 0.01, (0.02/0.03)² = 4/9 → 400/9; ask 0.52×50: (0.01/0.03)² = 1/9 → 50/9.
		// mid 0.50: max(min(400/9, 50/9), (400/9)/3) = 400/27.
		{"two sides mid 0.50", 0.50, []ord{{"0.49", "100", true}, {"0.52", "50", false}}, 400.0 / 9, 50.0 / 9, 400.0 / 27, false},
		// one side only at 0.50: a third of it counts.
		{"one side mid 0.50", 0.50, []ord{{"0.49", "100", true}}, 400.0 / 9, 0, 400.0 / 27, false},
		// at the edges 0.10 and 0.90 one side still counts (closed range).
		{"one side mid 0.10", 0.10, []ord{{"0.09", "90", true}}, 40, 0, 40.0 / 3, false},
		{"one side mid 0.90", 0.90, []ord{{"0.91", "90", false}}, 0, 40, 40.0 / 3, false},
		// outside [0.10, 0.90] one side scores nothing ...
		{"one side mid 0.05", 0.05, []ord{{"0.04", "100", true}}, 400.0 / 9, 0, 0, false},
		{"one side mid 0.95", 0.95, []ord{{"0.96", "100", false}}, 0, 400.0 / 9, 0, false},
		// ... and two sides score their minimum: ask 0.07×30 at s = 0.02: 30/9.
		{"two sides mid 0.05", 0.05, []ord{{"0.04", "100", true}, {"0.07", "30", false}}, 400.0 / 9, 30.0 / 9, 30.0 / 9, false},
		// below the minimum size, at the max spread or beyond: nothing.
		{"below min size", 0.50, []ord{{"0.49", "19.99", true}, {"0.51", "19.99", false}}, 0, 0, 0, false},
		{"at max spread", 0.50, []ord{{"0.47", "100", true}, {"0.53", "100", false}}, 0, 0, 0, false},
		// at the mid: the full size; two sides balanced: min wins over a third.
		{"at mid", 0.50, []ord{{"0.50", "20", true}, {"0.50", "30", false}}, 20, 30, 20, false},
		// a quarter cent off a half-cent mid: ((0.03 − 0.0025)/0.03)² × 40 = (11/12)² × 40.
		{"half tick mid", 0.505, []ord{{"0.5075", "40", false}}, 0, 40 * 121.0 / 144, 40 * 121.0 / 144 / 3, false},
	}
	r := RewardRule{MaxSpread: fx(t, "0.03"), MinSize: fx(t, "20")}
	for _, c := range cases {
		var q RewardSides
		for _, o := range c.orders {
			q.Add(r, c.mid, fx(t, o.price).Float(), fx(t, o.size).Float(), o.bid)
		}
		if math.Abs(q.One-c.one) > 1e-9 || math.Abs(q.Two-c.two) > 1e-9 {
			t.Errorf("%s: Q_one %v Q_two %v, want %v %v", c.name, q.One, q.Two, c.one, c.two)
		}
		if got := q.QMin(c.mid); math.Abs(got-c.qmin) > 1e-9 {
			t.Errorf("%s: Q_min %v, want %v", c.name, got, c.qmin)
		}
	}
	var none RewardSides
	none.Add(RewardRule{MinSize: fx(t, "20")}, 0.5, 0.5, 100, true)
	if none.One != 0 {
		t.Errorf("a rule without max spread scored %v", none.One)
	}
}

func TestRewardOrderScore(t *testing.T) {
	for _, c := range []struct{ v, s, want float64 }{
		{0.03, 0, 1}, {0.03, 0.01, 4.0 / 9}, {0.03, 0.015, 0.25}, {0.03, 0.03, 0}, {0.03, 0.04, 0},
		{0, 0, 0}, {0.03, -0.01, 0}, {math.NaN(), 0, 0},
	} {
		if got := RewardOrderScore(c.v, c.s); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("S(%v, %v) = %v, want %v", c.v, c.s, got, c.want)
		}
	}
}

func TestRewardPoolAndSplit(t *testing.T) {
	// 100 a day for one minute: 100/1440 = 0.069444… → 69444 base units.
	if got := RewardPool(fx(t, "100"), 60); got != 69444 {
		t.Errorf("pool %d, want 69444", got)
	}
	if RewardPool(fx(t, "100"), 0) != 0 || RewardPool(0, 60) != 0 {
		t.Error("an empty pool paid")
	}
	for _, c := range []struct {
		pool   Fixed
		scores []float64
		want   []Fixed
	}{
		{1000, []float64{1, 3}, []Fixed{250, 750}},
		{1000, []float64{1, 1, 1}, []Fixed{333, 333, 333}},
		{1000, []float64{0, 2, -1}, []Fixed{0, 1000, 0}},
		{1000, []float64{0, 0}, []Fixed{0, 0}},
		{0, []float64{1}, []Fixed{0}},
	} {
		got := SplitReward(c.pool, c.scores)
		var sum Fixed
		for i := range got {
			sum += got[i]
			if got[i] != c.want[i] {
				t.Errorf("split %d by %v = %v, want %v", c.pool, c.scores, got, c.want)
				break
			}
		}
		if sum > c.pool {
			t.Errorf("split %d paid %d", c.pool, sum)
		}
	}
}

func TestRewardMid(t *testing.T) {
	if m, ok := RewardMid(fx(t, "0.48"), fx(t, "0.52")); !ok || math.Abs(m-0.5) > 1e-12 {
		t.Errorf("mid %v %v", m, ok)
	}
	if _, ok := RewardMid(0, fx(t, "0.52")); ok {
		t.Error("mid of a one-sided book")
	}
}

func TestBooksMirror(t *testing.T) {
	for _, c := range []struct {
		b0, a0, b1, a1 string
		want           bool
	}{
		{"0.49", "0.51", "0.49", "0.51", true},
		{"0.50", "0.52", "0.48", "0.50", true},
		{"0.50", "0", "0", "0.50", true}, // one-sided, mirrored
		{"0.49", "0.51", "0.48", "0.51", false},
		{"0.49", "0.51", "0", "0", false}, // the second book empty: not a view of the first
		{"0", "0", "0", "0", false},
	} {
		if got := BooksMirror(fx(t, c.b0), fx(t, c.a0), fx(t, c.b1), fx(t, c.a1)); got != c.want {
			t.Errorf("%v: %v, want %v", c, got, c.want)
		}
	}
}
