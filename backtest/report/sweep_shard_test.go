package report

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/sweep"
)

// shardRows is a shard's rows with every kind of figure: exact decimals
// with trailing zeros, ratios that are NaN, infinite, tiny and huge, and
// a failed run.
func shardPart(t *testing.T) sweep.Part {
	t.Helper()
	params := []sweep.Param{{Key: "gamma", Values: []string{"0.05", "0.1"}}, {Key: "strategy.cycle", Values: []string{"1s", "2s", "5s"}}}
	grid, err := sweep.Grid(params)
	if err != nil {
		t.Fatal(err)
	}
	s := sweep.Shard{Index: 1, Count: 2}
	p := sweep.Part{Shard: s, Sweep: sweep.Identity{Params: params, Data: "sha256:aa", Config: "sha256:bb", Seed: math.MaxUint64, Build: "dev",
		Settings: []string{"strategy.model = \"bands\"", "--interval=1m0s"}}}
	d := decimal.RequireFromString
	tenth := 0.1
	ratios := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 5e-324, 1.7976931348623157e308, tenth + 0.2, math.Copysign(0, -1)}
	for i, c := range s.Of(grid) {
		r := sweep.Row{Combo: c}
		if i == 1 {
			r.Err = errors.New("sweep gamma=0.1 strategy.cycle=1s: risk: \"quoted\"\nsecond line")
		} else {
			f := func(k int) accounting.Ratio { return accounting.Ratio(ratios[(i+k)%len(ratios)]) }
			r.Headline = accounting.Headline{PnL: d("-12.340000"), Realized: d("0.000001"), SpreadPnL: d("1e-7"), InventoryPnL: d("123456789.5"),
				Fees: d("0.10"), Volume: d("1500"), Fills: 42, FillRatio: f(0), AvgWait: 1500 * time.Millisecond, MaxDrawdown: d("3.2"),
				Sharpe: f(1), Sortino: f(2), MaxAbsPos: d("300"), MeanAbsPos: f(3), EndPos: d("10"), Orders: 900, Cancels: 880,
				OrdersPeak: 12, CancelsPeak: 11, RewardShare: f(4), Markout10s: f(5)}
		}
		p.Rows = append(p.Rows, r)
	}
	return p
}

// A shard read back renders the sweep's table, CSV and JSON byte for byte
// as the rows it was written from.
func TestSweepShardRoundTrip(t *testing.T) {
	p := shardPart(t)
	var doc bytes.Buffer
	if err := WriteSweepShard(&doc, &p); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"format": "mmbot sweep shard 1"`, `"index": 1,`, `"count": 2`, `"combinations": 6`, `"seed": 18446744073709551615`,
		`"sharpe": "+Inf"`, `"fill_ratio": "NaN"`, `"error": "sweep gamma=0.1 strategy.cycle=1s: risk: \"quoted\"\nsecond line"`} {
		if !strings.Contains(doc.String(), want) {
			t.Errorf("the shard document lacks %s:\n%s", want, doc.String())
		}
	}
	q, err := ReadSweepShard(bytes.NewReader(doc.Bytes()), "shard.json")
	if err != nil {
		t.Fatal(err)
	}
	if d := p.Sweep.Diff(&q.Sweep); d != "" || q.Shard != p.Shard || q.Name != "shard.json" || !slices.Equal(q.Sweep.Settings, p.Sweep.Settings) {
		t.Errorf("read back as another shard: %s, %s, %q", d, q.Shard, q.Name)
	}
	render := func(rows []sweep.Row) string {
		var b bytes.Buffer
		keys := p.Sweep.Keys()
		if err := WriteSweepTable(&b, keys, rows); err != nil {
			t.Fatal(err)
		}
		if err := WriteSweepCSV(&b, keys, rows); err != nil {
			t.Fatal(err)
		}
		if err := WriteSweepJSON(&b, rows); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	if got, want := render(q.Rows), render(p.Rows); got != want {
		t.Errorf("read back, the rows render\n%s\nwant\n%s", got, want)
	}
	// Every ratio keeps its bits (NaN stays NaN, -0 stays -0).
	for i := range p.Rows {
		a, b := newExactHeadline(&p.Rows[i].Headline), newExactHeadline(&q.Rows[i].Headline)
		for j, pa := range a.ratios() {
			if math.Float64bits(*pa[1]) != math.Float64bits(*b.ratios()[j][1]) {
				t.Errorf("row %d ratio %d: %v read back as %v", i, j, *pa[1], *b.ratios()[j][1])
			}
		}
	}
	// Written again, the same bytes.
	var again bytes.Buffer
	if err := WriteSweepShard(&again, &q); err != nil || !bytes.Equal(again.Bytes(), doc.Bytes()) {
		t.Errorf("written again (%v):\n%s\nfirst:\n%s", err, again.String(), doc.String())
	}
}

// Every Ratio of the Headline has its exact field in the shard document: a
// ratio added to the Headline must be added to exactHeadline too.
func TestShardHeadlineShadowsEveryRatio(t *testing.T) {
	ht, et := reflect.TypeOf(accounting.Headline{}), reflect.TypeOf(exactHeadline{})
	var h accounting.Headline
	e := newExactHeadline(&h)
	n := 0
	for i := 0; i < ht.NumField(); i++ {
		f := ht.Field(i)
		if f.Type != reflect.TypeOf(accounting.Ratio(0)) {
			continue
		}
		n++
		sf, ok := et.FieldByName(f.Name)
		if !ok || sf.Type != reflect.TypeOf(exactRatio(0)) || sf.Tag.Get("json") != f.Tag.Get("json") || len(sf.Index) != 1 {
			t.Errorf("Headline.%s (%s) is not shadowed by an exactRatio of the same JSON name", f.Name, f.Tag.Get("json"))
		}
		// ratios() pairs it: setting the Headline's field shows in the pair.
		reflect.ValueOf(&e.Headline).Elem().Field(i).SetFloat(float64(i) + 0.5)
		found := false
		for _, p := range e.ratios() {
			found = found || *p[1] == float64(i)+0.5
		}
		if !found {
			t.Errorf("Headline.%s is not in exactHeadline.ratios", f.Name)
		}
	}
	if n != len(e.ratios()) {
		t.Errorf("the Headline has %d ratios, ratios() pairs %d", n, len(e.ratios()))
	}
}

func TestReadSweepShardRefuses(t *testing.T) {
	p := shardPart(t)
	var doc bytes.Buffer
	if err := WriteSweepShard(&doc, &p); err != nil {
		t.Fatal(err)
	}
	good := doc.String()
	for _, tc := range []struct {
		name, doc, msg string
	}{
		{"empty", "", "x.json: not a sweep shard: EOF"},
		{"sweep JSON", "[]", "x.json: not a sweep shard: json: cannot unmarshal array"},
		{"other format", strings.Replace(good, ShardFormat, "mmbot sweep shard 9", 1), `format "mmbot sweep shard 9", want "mmbot sweep shard 1"`},
		{"unknown field", strings.Replace(good, `"seed"`, `"sead"`, 1), `unknown field "sead"`},
		{"two documents", good + good, "more than one JSON value"},
		{"wrong size", strings.Replace(good, `"combinations": 6`, `"combinations": 7`, 1), "the grid has 6 combinations, not 7"},
		{"bad grid", strings.Replace(good, `"strategy.cycle"`, `"gamma"`, 1), "sweep gamma: swept twice"},
		{"short row", strings.Replace(good, "\"values\": [\n        \"0.05\",\n        \"2s\"\n      ]", `"values": ["0.05"]`, 1), "row 0 (run 1) has 1 values for 2 keys"},
		{"bad ratio", strings.Replace(good, `"sharpe": "+Inf"`, `"sharpe": "lots"`, 1), `ratio "lots"`},
		{"results and error", strings.Replace(good, `"run": 1,`, `"run": 1, "error": "x",`, 1), "row 0 (run 1) has both results and an error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.doc == good {
				t.Fatal("the case changes nothing")
			}
			_, err := ReadSweepShard(strings.NewReader(tc.doc), "x.json")
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("%v; want an error with %q", err, tc.msg)
			}
		})
	}
}
