package sweep

import (
	"strconv"
	"strings"
	"testing"
)

var parseSweepCases = []struct {
	in   string
	key  string
	vals []string // nil: an error
}{
	{"gamma=0.05,0.1,0.5", "gamma", []string{"0.05", "0.1", "0.5"}},
	{" levels = 1 , 2 ", "levels", []string{"1", "2"}},
	{"strategy.cycle=500ms", "strategy.cycle", []string{"500ms"}},
	{"gamma", "", nil},
	{"=1,2", "", nil},
	{"gamma=", "", nil},
	{"gamma=1,,2", "", nil},
	{"gamma=1,1", "", nil},
}

func TestParseSweep(t *testing.T) {
	for _, tc := range parseSweepCases {
		p, err := Parse(tc.in)
		if tc.vals == nil {
			if err == nil {
				t.Errorf("%q: accepted as %+v", tc.in, p)
			}
			continue
		}
		if err != nil || p.Key != tc.key || strings.Join(p.Values, "|") != strings.Join(tc.vals, "|") {
			t.Errorf("%q: %+v, %v", tc.in, p, err)
		}
	}
}

func FuzzParseSweep(f *testing.F) {
	for _, tc := range parseSweepCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if err != nil {
			return
		}
		if p.Key == "" || len(p.Values) == 0 {
			t.Fatalf("%q: %+v", s, p)
		}
		// Printing and parsing again gives the same parameter.
		q, err := Parse(p.Key + "=" + strings.Join(p.Values, ","))
		if err != nil || q.Key != p.Key || strings.Join(q.Values, "\x00") != strings.Join(p.Values, "\x00") {
			t.Fatalf("%q: %+v does not round-trip: %+v, %v", s, p, q, err)
		}
	})
}

func TestGrid(t *testing.T) {
	g, err := Grid([]Param{{"a", []string{"1", "2"}}, {"b", []string{"x", "y", "z"}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, c := range g {
		if c.Index != i {
			t.Errorf("combo %d has index %d", i, c.Index)
		}
		got = append(got, c.String())
	}
	want := "a=1 b=x|a=1 b=y|a=1 b=z|a=2 b=x|a=2 b=y|a=2 b=z"
	if strings.Join(got, "|") != want {
		t.Errorf("grid %q, want %q", strings.Join(got, "|"), want)
	}
	if g, err := Grid(nil); err != nil || len(g) != 1 || g[0].String() != "" {
		t.Errorf("empty grid: %+v, %v", g, err)
	}
	if _, err := Grid([]Param{{"a", []string{"1"}}, {"a", []string{"2"}}}); err == nil {
		t.Error("a key swept twice was accepted")
	}
	big := Param{Key: "n"}
	for i := 0; i < 101; i++ {
		big.Values = append(big.Values, strconv.Itoa(i))
	}
	b2 := big
	b2.Key = "m"
	if _, err := Grid([]Param{big, b2}); err == nil {
		t.Error("a grid of 10201 combinations was accepted")
	}
}
