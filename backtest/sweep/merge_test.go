package sweep

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/accounting"
)

var mergeParams = []Param{{"a", []string{"1", "2", "3"}}, {"b", []string{"x", "y"}}}

func mergeIdentity() Identity {
	return Identity{Params: mergeParams, Data: "sha256:d", Config: "sha256:c", Seed: 7, Build: "test", Settings: []string{"a = 1", "b = 2"}}
}

// runShards runs the grid of mergeParams in n shards; every run's PnL is
// its index, and run 4 fails.
func runShards(t *testing.T, n int) (whole []Row, parts []Part) {
	t.Helper()
	grid, err := Grid(mergeParams)
	if err != nil {
		t.Fatal(err)
	}
	fn := func(_ context.Context, c Combo) (*accounting.Results, error) {
		if c.Index == 4 {
			return nil, errors.New("run 4 failed")
		}
		r := &accounting.Results{}
		r.Total.PnL = decimal.NewFromInt(int64(c.Index))
		return r, nil
	}
	if whole, err = Run(context.Background(), grid, 2, fn); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		s := Shard{Index: i, Count: n}
		rows, err := Run(context.Background(), s.Of(grid), 2, fn)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, Part{Sweep: mergeIdentity(), Shard: s, Rows: rows, Name: fmt.Sprintf("part%d", i)})
	}
	return whole, parts
}

func rowsText(rows []Row) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%d %s %s %v\n", r.Combo.Index, r.Combo, r.Headline.PnL, r.Err)
	}
	return b.String()
}

// The shards merged, given in any order, are the whole sweep's rows.
func TestMergeShards(t *testing.T) {
	for _, n := range []int{1, 2, 4, 6, 9} {
		whole, parts := runShards(t, n)
		slices.Reverse(parts)
		id, rows, err := Merge(parts)
		if err != nil {
			t.Fatalf("%d shards: %v", n, err)
		}
		if got, want := rowsText(rows), rowsText(whole); got != want {
			t.Errorf("%d shards merged:\n%s\nwant\n%s", n, got, want)
		}
		if id.Diff(&parts[0].Sweep) != "" || strings.Join(id.Keys(), ",") != "a,b" {
			t.Errorf("identity %+v", id)
		}
	}
}

func TestMergeRefuses(t *testing.T) {
	_, parts := runShards(t, 3)
	other := func(change func(p *Part)) []Part {
		ps := slices.Clone(parts)
		p := ps[2]
		p.Sweep.Params = slices.Clone(p.Sweep.Params)
		change(&p)
		ps[2] = p
		return ps
	}
	for _, tc := range []struct {
		name  string
		parts []Part
		is    error
		msg   string
	}{
		{"nothing", nil, ErrMissingShard, "no shard to merge"},
		{"missing", parts[:2], ErrMissingShard, "have 2 of 3 shards; missing 2"},
		{"missing several", []Part{parts[1]}, ErrMissingShard, "have 1 of 3 shards; missing 0, 2"},
		{"duplicate", append(slices.Clone(parts), parts[1]), ErrDuplicateShard, "part1 and part1 are both shard 1/3"},
		{"other data", other(func(p *Part) { p.Sweep.Data = "sha256:e" }), ErrDifferentSweeps, `part0 and part2: recording "sha256:d" against "sha256:e"`},
		{"other config", other(func(p *Part) { p.Sweep.Config = "sha256:x" }), ErrDifferentSweeps, `configuration "sha256:c" against "sha256:x"`},
		{"other config setting", other(func(p *Part) { p.Sweep.Config, p.Sweep.Settings = "sha256:x", []string{"a = 1", "b = 3"} }),
			ErrDifferentSweeps, `configuration "b = 2" against "b = 3"`},
		{"other seed", other(func(p *Part) { p.Sweep.Seed = 8 }), ErrDifferentSweeps, `seed "7" against "8"`},
		{"other build", other(func(p *Part) { p.Sweep.Build = "v2" }), ErrDifferentSweeps, "build"},
		{"other grid", other(func(p *Part) { p.Sweep.Params[1] = Param{"b", []string{"x", "z"}} }), ErrDifferentSweeps, `grid "a=1,2,3 b=x,y" against "a=1,2,3 b=x,z"`},
		{"other count", other(func(p *Part) { p.Shard = Shard{Index: 2, Count: 4} }), ErrDifferentSweeps, "part2 is shard 2/4: not the same number of shards"},
		{"out of range", other(func(p *Part) { p.Shard = Shard{Index: 3, Count: 3} }), ErrBadShard, "the index must be from 0 to 2"},
		{"row of another shard", other(func(p *Part) { p.Rows = parts[1].Rows }), ErrBadShard, "part2 (shard 2/3): row 0 is run 1 (1 y); want run 2 (a=2 b=x)"},
		{"a row short", other(func(p *Part) { p.Rows = p.Rows[:1] }), ErrBadShard, "part2 (shard 2/3) has 1 rows; the shard has 2 combinations"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, rows, err := Merge(tc.parts)
			if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.msg) || rows != nil {
				t.Errorf("%d rows, %v; want %v with %q", len(rows), err, tc.is, tc.msg)
			}
		})
	}
	// Past ten missing shards the message counts the rest.
	_, many := runShards(t, 30)
	if _, _, err := Merge(many[:2]); err == nil || !strings.Contains(err.Error(), "missing 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 18 more") {
		t.Errorf("30 shards, 2 given: %v", err)
	}
}
