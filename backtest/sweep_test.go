package backtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/strategy"
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
		p, err := ParseSweep(tc.in)
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
		p, err := ParseSweep(s)
		if err != nil {
			return
		}
		if p.Key == "" || len(p.Values) == 0 {
			t.Fatalf("%q: %+v", s, p)
		}
		// Printing and parsing again gives the same parameter.
		q, err := ParseSweep(p.Key + "=" + strings.Join(p.Values, ","))
		if err != nil || q.Key != p.Key || strings.Join(q.Values, "\x00") != strings.Join(p.Values, "\x00") {
			t.Fatalf("%q: %+v does not round-trip: %+v, %v", s, p, q, err)
		}
	})
}

func TestGrid(t *testing.T) {
	g, err := Grid([]SweepParam{{"a", []string{"1", "2"}}, {"b", []string{"x", "y", "z"}}})
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
	if _, err := Grid([]SweepParam{{"a", []string{"1"}}, {"a", []string{"2"}}}); err == nil {
		t.Error("a key swept twice was accepted")
	}
	big := SweepParam{Key: "n"}
	for i := 0; i < 101; i++ {
		big.Values = append(big.Values, strconv.Itoa(i))
	}
	b2 := big
	b2.Key = "m"
	if _, err := Grid([]SweepParam{big, b2}); err == nil {
		t.Error("a grid of 10201 combinations was accepted")
	}
}

// sweepFn runs the test market with bands whose first offset and number of
// levels come from the combination.
func sweepFn(evs []Event) func(ctx context.Context, c Combo) (*Results, error) {
	return func(ctx context.Context, c Combo) (*Results, error) {
		offset, levels := 0.01, 1
		for i, k := range c.Keys {
			switch k {
			case "offset":
				offset, _ = strconv.ParseFloat(c.Values[i], 64)
			case "levels":
				levels, _ = strconv.Atoi(c.Values[i])
			}
		}
		if levels == 3 {
			return nil, errors.New("three levels refused")
		}
		p := strategy.BandsParams{}
		for l := 0; l < levels; l++ {
			p.Offsets = append(p.Offsets, offset+0.01*float64(l))
			p.Sizes = append(p.Sizes, 10)
		}
		model, err := strategy.NewBands(p)
		if err != nil {
			return nil, err
		}
		cfg, err := testRunConfig()
		if err != nil {
			return nil, err
		}
		cfg.Loop.Params.Model = model
		cfg.Replay.Matcher.Seed = 11
		cfg.Replay.Matcher.Latency.Order = Uniform(10*time.Millisecond, 90*time.Millisecond)
		return Run(ctx, &SliceSource{Events: evs}, cfg)
	}
}

// TestSweepDeterministic runs a grid with one worker and with two: the
// rows are identical, in grid order, and differ between combinations.
func TestSweepDeterministic(t *testing.T) {
	evs := synthEvents(t, synthConfig{Seed: 5, Duration: 8 * time.Minute, Books: 5, Levels: 6, Trades: 1, Informed: 0.3, Vol: 0.6})
	params := []SweepParam{{"offset", []string{"0.01", "0.02"}}, {"levels", []string{"1", "2", "3"}}}
	combos, err := Grid(params)
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{"offset", "levels"}
	render := func(workers int) (table, csv, js []byte) {
		rows, err := RunSweep(context.Background(), combos, workers, sweepFn(evs))
		if err != nil {
			t.Fatal(err)
		}
		var a, b, c bytes.Buffer
		if err := WriteSweepTable(&a, keys, rows); err != nil {
			t.Fatal(err)
		}
		if err := WriteSweepCSV(&b, keys, rows); err != nil {
			t.Fatal(err)
		}
		if err := WriteSweepJSON(&c, rows); err != nil {
			t.Fatal(err)
		}
		return a.Bytes(), b.Bytes(), c.Bytes()
	}
	t1, c1, j1 := render(1)
	t2, c2, j2 := render(2)
	if !bytes.Equal(t1, t2) || !bytes.Equal(c1, c2) || !bytes.Equal(j1, j2) {
		t.Fatalf("1 worker and 2 workers differ:\n%s\n---\n%s", t1, t2)
	}
	lines := strings.Split(strings.TrimSpace(string(c1)), "\n")
	if len(lines) != 7 || !strings.HasPrefix(lines[0], "run,offset,levels,pnl,") {
		t.Fatalf("csv:\n%s", c1)
	}
	if !strings.HasSuffix(lines[3], "three levels refused") || strings.Contains(lines[1], "refused") {
		t.Errorf("the failed combination is not reported on its own row:\n%s", c1)
	}
	if lines[1][2:] == lines[4][2:] {
		t.Errorf("offsets 0.01 and 0.02 gave the same row:\n%s", c1)
	}
	var js []map[string]any
	if err := json.Unmarshal(j1, &js); err != nil || len(js) != 6 || js[2]["error"] == nil || js[0]["results"] == nil {
		t.Errorf("json rows: %v\n%s", err, j1)
	}
}

func TestRunSweepCancelled(t *testing.T) {
	combos, _ := Grid([]SweepParam{{"x", []string{"1", "2", "3", "4"}}})
	ctx, cancel := context.WithCancel(context.Background())
	ran := 0
	rows, err := RunSweep(ctx, combos, 1, func(context.Context, Combo) (*Results, error) {
		ran++
		cancel()
		return &Results{}, nil
	})
	if !errors.Is(err, context.Canceled) || ran > 2 || len(rows) != 4 {
		t.Errorf("cancelled sweep: %v after %d runs, %d rows", err, ran, len(rows))
	}
}
