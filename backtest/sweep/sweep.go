package sweep

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/mmbot/mmbot/backtest/accounting"
)

// MaxGrid bounds the number of combinations of one sweep.
const MaxGrid = 10_000

// Param is one swept parameter: a key and the values it takes.
type Param struct {
	Key    string
	Values []string
}

// Parse parses "key=v1,v2,...". Values are trimmed; empty ones and
// repeated ones are errors.
func Parse(s string) (Param, error) {
	key, vals, ok := strings.Cut(s, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" {
		return Param{}, fmt.Errorf("sweep %q: want key=v1,v2", s)
	}
	p := Param{Key: key}
	seen := map[string]bool{}
	for _, v := range strings.Split(vals, ",") {
		v = strings.TrimSpace(v)
		if v == "" {
			return Param{}, fmt.Errorf("sweep %q: empty value", s)
		}
		if seen[v] {
			return Param{}, fmt.Errorf("sweep %q: value %q listed twice", s, v)
		}
		seen[v] = true
		p.Values = append(p.Values, v)
	}
	return p, nil
}

// Combo is one point of a sweep's grid: one value per parameter, in the
// parameters' order.
type Combo struct {
	Index  int
	Keys   []string
	Values []string
}

// String writes the combination as "key=value key=value".
func (c Combo) String() string {
	parts := make([]string, len(c.Keys))
	for i := range c.Keys {
		parts[i] = c.Keys[i] + "=" + c.Values[i]
	}
	return strings.Join(parts, " ")
}

// Grid returns the cartesian product of params, the first parameter
// varying slowest. No parameter is a grid of one empty combination.
func Grid(params []Param) ([]Combo, error) {
	n := 1
	keys := make([]string, len(params))
	seen := map[string]bool{}
	for i, p := range params {
		if len(p.Values) == 0 {
			return nil, fmt.Errorf("sweep %s: no values", p.Key)
		}
		if seen[p.Key] {
			return nil, fmt.Errorf("sweep %s: swept twice", p.Key)
		}
		seen[p.Key] = true
		keys[i] = p.Key
		n *= len(p.Values)
		if n > MaxGrid {
			return nil, fmt.Errorf("sweep grid larger than %d combinations", MaxGrid)
		}
	}
	out := make([]Combo, n)
	for i := range out {
		c := Combo{Index: i, Keys: keys, Values: make([]string, len(params))}
		rest := i
		for j := len(params) - 1; j >= 0; j-- {
			vs := params[j].Values
			c.Values[j] = vs[rest%len(vs)]
			rest /= len(vs)
		}
		out[i] = c
	}
	return out, nil
}

// Row is the outcome of one combination: its headline figures, or the
// error that stopped it.
type Row struct {
	Combo    Combo
	Headline accounting.Headline
	Err      error
}

// Run runs fn for every combination on up to workers goroutines and
// returns one row per combination, in the grid's order. Each run must
// depend only on its combination (and a seed shared by all), so the rows do
// not depend on the number of workers. A failed combination does not stop
// the others; a cancelled ctx stops the sweep, and Run returns
// ctx.Err() with the rows done so far.
func Run(ctx context.Context, combos []Combo, workers int, fn func(ctx context.Context, c Combo) (*accounting.Results, error)) ([]Row, error) {
	if fn == nil {
		return nil, errors.New("backtest: RunSweep without a run function")
	}
	workers = max(1, min(workers, len(combos)))
	rows := make([]Row, len(combos))
	for i := range combos {
		rows[i].Combo = combos[i]
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				res, err := fn(ctx, combos[i])
				if err != nil {
					rows[i].Err = err
					continue
				}
				rows[i].Headline = accounting.HeadlineOf(res)
			}
		}()
	}
	cancelled := false
	for i := range combos {
		if ctx.Err() != nil {
			cancelled = true
			break
		}
		select {
		case jobs <- i:
		case <-ctx.Done():
			cancelled = true
		}
		if cancelled {
			break
		}
	}
	close(jobs)
	wg.Wait()
	if cancelled || ctx.Err() != nil {
		return rows, ctx.Err()
	}
	return rows, nil
}
