package strategy

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/exchange"
)

func TestVolEstimator(t *testing.T) {
	e, err := NewVolEstimator(VolParams{HalfLife: time.Minute, Prior: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	approx(t, "prior", e.Variance(), 1e-6, 0)
	e.Update(0, t0)
	e.Update(0.01, t0.Add(10*time.Second))
	// r = 0.01 over 10 s: r²/dt = 1e-5. α = 1 − 2^(−10/60) = 0.1091012
	// v = 1e-6 + 0.1091012 × (1e-5 − 1e-6) = 1.9819109e-6
	approx(t, "one step", e.Variance(), 1e-6+(1-math.Exp2(-10.0/60))*9e-6, 1e-18)
	approx(t, "one step (hand)", e.Variance(), 1.9819109e-6, 1e-12)
	before := e.Variance()
	e.Update(5, t0.Add(10*time.Second)) // same time: ignored
	e.Update(5, t0)                     // earlier: ignored
	e.Update(math.NaN(), t0.Add(time.Hour))
	if e.Variance() != before || e.Samples() != 1 {
		t.Fatalf("ignored updates changed the state: %v %d", e.Variance(), e.Samples())
	}
	// Steady increments of 0.002 every 2 s converge to 0.002²/2 = 2e-6.
	x := 0.01
	for i := 2; i < 2000; i++ {
		x += 0.002 * float64(1-2*(i%2)) // alternate up and down
		e.Update(x, t0.Add(time.Duration(10+2*(i-1))*time.Second))
	}
	approx(t, "converged", e.Variance(), 2e-6, 1e-9)
}

func TestVolParamsValidate(t *testing.T) {
	for _, c := range []struct {
		p     VolParams
		field string
	}{
		{VolParams{HalfLife: 0, Prior: 1}, "HalfLife"},
		{VolParams{HalfLife: time.Second, Prior: 0}, "Prior"},
		{VolParams{HalfLife: time.Second, Prior: math.NaN()}, "Prior"},
	} {
		if _, err := NewVolEstimator(c.p); err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%+v: %v", c.p, err)
		}
	}
}

// exponentialTape returns n trades whose distances from fair (logit) follow
// an exponential law of rate k, spread evenly over dur: the tape of
// λ(δ) = (n/dur)·e^(−kδ).
func exponentialTape(n int, k, fair float64, dur time.Duration) []TradePrint {
	tape := make([]TradePrint, n)
	x := Logit(fair)
	for i := range tape {
		delta := -math.Log(1-(float64(i)+0.5)/float64(n)) / k
		y := x + delta
		o, p := Yes, Sigmoid(y)
		if i%2 == 1 { // half of them below fair, printed on the NO token
			o, p = No, 1-Sigmoid(x-delta)
		}
		tape[i] = TradePrint{Outcome: o, Side: exchange.Buy, Price: df(math.Round(p*1e8) / 1e8), Size: d("1"),
			Time: t0.Add(time.Duration(i+1) * dur / time.Duration(n))}
	}
	return tape
}

func TestIntensityFit(t *testing.T) {
	p := IntensityParams{HalfLife: 1e6 * time.Hour, BinWidth: 0.01, Bins: 60, PriorA: 0.01, PriorK: 15, PriorWeight: 1}
	e, err := NewIntensityEstimator(p)
	if err != nil {
		t.Fatal(err)
	}
	a, k := e.Fit()
	if a != p.PriorA || k != p.PriorK {
		t.Fatalf("no data: A %v k %v, want the prior", a, k)
	}
	const n, kTrue = 4000, 25.0
	dur := 2000 * time.Second // A = 4000/2000 = 2 per second
	tape := exponentialTape(n, kTrue, 0.4, dur)
	e.Update(0.4, nil, t0)
	e.Update(0.4, tape, t0.Add(dur))
	a, k = e.Fit()
	approx(t, "k", k, kTrue, 0.05*kTrue)
	approx(t, "A", a, 2, 0.1)
	if math.Abs(e.Trades()-n) > 1e-6 {
		t.Fatalf("counted %v trades", e.Trades())
	}
	// Seeing the same tape again counts nothing new.
	e.Update(0.4, tape, t0.Add(dur))
	if math.Abs(e.Trades()-n) > 1e-6 {
		t.Fatalf("recounted: %v", e.Trades())
	}
}

func TestIntensityThinDataStaysNearPrior(t *testing.T) {
	p := IntensityParams{HalfLife: time.Hour, BinWidth: 0.01, Bins: 60, PriorA: 0.01, PriorK: 15, PriorWeight: 20}
	e, _ := NewIntensityEstimator(p)
	tape := exponentialTape(4, 60, 0.5, time.Minute)
	e.Update(0.5, nil, t0)
	e.Update(0.5, tape, t0.Add(time.Minute))
	_, k := e.Fit()
	// 4 trades against a prior worth 20: k moves at most 4/24 of the way.
	if k < 15 || k > 15+(60-15)*4.0/24+1 {
		t.Fatalf("k = %v", k)
	}
	// Deterministic: the same inputs give the same estimate.
	f, _ := NewIntensityEstimator(p)
	f.Update(0.5, nil, t0)
	f.Update(0.5, tape, t0.Add(time.Minute))
	a1, k1 := e.Fit()
	a2, k2 := f.Fit()
	if a1 != a2 || k1 != k2 {
		t.Fatal("not deterministic")
	}
}

func TestIntensityDecay(t *testing.T) {
	p := IntensityParams{HalfLife: time.Minute, BinWidth: 0.01, Bins: 10, PriorA: 0.01, PriorK: 15, PriorWeight: 0}
	e, _ := NewIntensityEstimator(p)
	e.Update(0.5, nil, t0)
	e.Update(0.5, exponentialTape(10, 30, 0.5, time.Second), t0.Add(time.Second))
	e.Update(0.5, nil, t0.Add(61*time.Second))
	approx(t, "halved", e.Trades(), 5, 1e-9)
}

func TestIntensityParamsValidate(t *testing.T) {
	good := DefaultEstimatorParams().Intensity
	for _, c := range []struct {
		mod   func(*IntensityParams)
		field string
	}{
		{func(p *IntensityParams) { p.HalfLife = 0 }, "HalfLife"},
		{func(p *IntensityParams) { p.BinWidth = -1 }, "BinWidth"},
		{func(p *IntensityParams) { p.Bins = 1 }, "Bins"},
		{func(p *IntensityParams) { p.PriorA = 0 }, "PriorA"},
		{func(p *IntensityParams) { p.PriorK = math.Inf(1) }, "PriorK"},
		{func(p *IntensityParams) { p.PriorWeight = -1 }, "PriorWeight"},
	} {
		p := good
		c.mod(&p)
		if _, err := NewIntensityEstimator(p); err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: %v", c.field, err)
		}
	}
}

func TestMarketStateObserve(t *testing.T) {
	st, err := NewMarketState(DefaultEstimatorParams())
	if err != nil {
		t.Fatal(err)
	}
	s := book("0.01", "0.48", "0.52", "", "")
	st.Observe(s)
	if !st.HasFair || st.Fair != 0.5 || !st.Updated.Equal(t0) {
		t.Fatalf("%+v", st)
	}
	s2 := book("0.01", "0.50", "0.54", "", "")
	s2.Now = t0.Add(time.Minute)
	s2.Trades = []TradePrint{{Outcome: Yes, Side: exchange.Buy, Price: d("0.54"), Size: d("10"), Time: t0.Add(30 * time.Second)}}
	st.Observe(s2)
	if st.Vol.Samples() != 1 || st.Intensity.Trades() != 1 {
		t.Fatalf("vol samples %d trades %v", st.Vol.Samples(), st.Intensity.Trades())
	}
	empty := book("0.01", "", "", "", "")
	empty.Now = t0.Add(2 * time.Minute)
	st.Observe(empty)
	if st.Fair != 0.52 || !st.Updated.Equal(empty.Now) {
		t.Fatal("an empty snapshot changed the fair value")
	}
	if _, err := NewMarketState(EstimatorParams{}); err == nil {
		t.Fatal("zero params accepted")
	}
}
