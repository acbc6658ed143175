package report

import (
	"math"
	"strconv"
	"testing"
)

// lab converts "#rrggbb" (sRGB) to CIELAB under D65.
func lab(t *testing.T, hex string) [3]float64 {
	t.Helper()
	if len(hex) != 7 || hex[0] != '#' {
		t.Fatalf("colour %q", hex)
	}
	var rgb [3]float64
	for i := range rgb {
		v, err := strconv.ParseUint(hex[1+2*i:3+2*i], 16, 8)
		if err != nil {
			t.Fatal(err)
		}
		c := float64(v) / 255
		if c <= 0.04045 {
			rgb[i] = c / 12.92
		} else {
			rgb[i] = math.Pow((c+0.055)/1.055, 2.4)
		}
	}
	x := (0.4124*rgb[0] + 0.3576*rgb[1] + 0.1805*rgb[2]) / 0.95047
	y := 0.2126*rgb[0] + 0.7152*rgb[1] + 0.0722*rgb[2]
	z := (0.0193*rgb[0] + 0.1192*rgb[1] + 0.9505*rgb[2]) / 1.08883
	f := func(v float64) float64 {
		if v > 0.008856 {
			return math.Cbrt(v)
		}
		return 7.787*v + 16.0/116
	}
	return [3]float64{116*f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))}
}

// The four series of a price plot — our bid and ask, buy and sell fills —
// are far apart in CIELAB (ΔE76 of at least 45; 2.3 is a just noticeable
// difference): "our ask" and "sell fills" were two oranges 33 apart.
func TestPriceplotColoursAreFarApart(t *testing.T) {
	colours := map[string]string{"our bid": colorBid, "our ask": colorAsk, "buy fills": colorBuyFill, "sell fills": colorSellFill}
	names := []string{"our bid", "our ask", "buy fills", "sell fills"}
	for i, a := range names {
		for _, b := range names[i+1:] {
			la, lb := lab(t, colours[a]), lab(t, colours[b])
			if d := math.Sqrt((la[0]-lb[0])*(la[0]-lb[0]) + (la[1]-lb[1])*(la[1]-lb[1]) + (la[2]-lb[2])*(la[2]-lb[2])); d < 45 {
				t.Errorf("%s %s and %s %s are only ΔE %.1f apart", a, colours[a], b, colours[b], d)
			}
		}
	}
}
