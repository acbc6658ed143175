package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/internal/synthetic"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/backtest/report"
	"github.com/mmbot/mmbot/backtest/sweep"
	"github.com/mmbot/mmbot/strategy"
)

// sweepFn runs the test market with bands whose first offset and number of
// levels come from the combination.
func sweepFn(evs []recording.Event) func(ctx context.Context, c sweep.Combo) (*accounting.Results, error) {
	return sweepFrom(func(sweep.Combo) (Source, func(), error) { return &SliceSource{Events: evs}, func() {}, nil })
}

// sweepFrom is sweepFn over the source src gives each combination (and
// the function that closes it).
func sweepFrom(src func(sweep.Combo) (Source, func(), error)) func(ctx context.Context, c sweep.Combo) (*accounting.Results, error) {
	return func(ctx context.Context, c sweep.Combo) (*accounting.Results, error) {
		from, done, err := src(c)
		if err != nil {
			return nil, err
		}
		defer done()
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
		cfg.Replay.Matcher.Latency.Order = fillmodel.Uniform(10*time.Millisecond, 90*time.Millisecond)
		return Run(ctx, from, cfg)
	}
}

// TestSweepDeterministic runs a grid with one worker and with two: the
// rows are identical, in grid order, and differ between combinations.
func TestSweepDeterministic(t *testing.T) {
	evs := synthetic.Events(t, synthetic.Config{Seed: 5, Duration: 8 * time.Minute, Books: 5, Levels: 6, Trades: 1, Informed: 0.3, Vol: 0.6})
	params := []sweep.Param{{Key: "offset", Values: []string{"0.01", "0.02"}}, {Key: "levels", Values: []string{"1", "2", "3"}}}
	combos, err := sweep.Grid(params)
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{"offset", "levels"}
	render := func(workers int) (table, csv, js []byte) {
		rows, err := sweep.Run(context.Background(), combos, workers, sweepFn(evs))
		if err != nil {
			t.Fatal(err)
		}
		var a, b, c bytes.Buffer
		if err := report.WriteSweepTable(&a, keys, rows); err != nil {
			t.Fatal(err)
		}
		if err := report.WriteSweepCSV(&b, keys, rows); err != nil {
			t.Fatal(err)
		}
		if err := report.WriteSweepJSON(&c, rows); err != nil {
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
	combos, _ := sweep.Grid([]sweep.Param{{Key: "x", Values: []string{"1", "2", "3", "4"}}})
	ctx, cancel := context.WithCancel(context.Background())
	ran := 0
	rows, err := sweep.Run(ctx, combos, 1, func(context.Context, sweep.Combo) (*accounting.Results, error) {
		ran++
		cancel()
		return &accounting.Results{}, nil
	})
	if !errors.Is(err, context.Canceled) || ran > 2 || len(rows) != 4 {
		t.Errorf("cancelled sweep: %v after %d runs, %d rows", err, ran, len(rows))
	}
}
