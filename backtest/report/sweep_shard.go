package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/sweep"
)

// ShardFormat is the "format" of a sweep shard document; a reader refuses
// any other.
const ShardFormat = "mmbot sweep shard 1"

// shardDoc is the JSON document of one shard of a sweep: which shard of
// which sweep, and its rows. Unlike WriteSweepJSON's, its figures are
// exact: ReadSweepShard gives back the rows WriteSweepShard was given,
// so that merged shards render byte for byte as the whole sweep does.
type shardDoc struct {
	Format string        `json:"format"`
	Shard  shardPosition `json:"shard"`
	Sweep  shardIdentity `json:"sweep"`
	Rows   []shardRow    `json:"rows"`
}

type shardPosition struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

type shardIdentity struct {
	Params       []shardParam `json:"params"`
	Combinations int          `json:"combinations"`
	Data         string       `json:"data"`
	Config       string       `json:"config"`
	Seed         uint64       `json:"seed"`
	Build        string       `json:"build"`
	Settings     []string     `json:"settings,omitempty"`
}

type shardParam struct {
	Key    string   `json:"key"`
	Values []string `json:"values"`
}

// shardRow is one combination's outcome: results, or (results absent) the
// error that stopped it.
type shardRow struct {
	Run     int            `json:"run"`
	Values  []string       `json:"values"`
	Results *exactHeadline `json:"results,omitempty"`
	Err     string         `json:"error,omitempty"`
}

// exactHeadline is a Headline whose ratios keep NaN and the infinities
// (accounting.Ratio writes them as null): its own ratio fields shadow the
// embedded ones of the same JSON names.
type exactHeadline struct {
	accounting.Headline
	FillRatio   exactRatio `json:"fill_ratio"`
	Sharpe      exactRatio `json:"sharpe"`
	Sortino     exactRatio `json:"sortino"`
	MeanAbsPos  exactRatio `json:"mean_abs_position"`
	RewardShare exactRatio `json:"reward_share"`
	Markout10s  exactRatio `json:"markout_10s"`
}

// ratios pairs each shadowing field with the Headline's field
// (TestShardHeadlineShadowsEveryRatio checks that none is left out).
func (h *exactHeadline) ratios() [][2]*float64 {
	p := func(e *exactRatio, r *accounting.Ratio) [2]*float64 { return [2]*float64{(*float64)(e), (*float64)(r)} }
	return [][2]*float64{p(&h.FillRatio, &h.Headline.FillRatio), p(&h.Sharpe, &h.Headline.Sharpe), p(&h.Sortino, &h.Headline.Sortino),
		p(&h.MeanAbsPos, &h.Headline.MeanAbsPos), p(&h.RewardShare, &h.Headline.RewardShare), p(&h.Markout10s, &h.Headline.Markout10s)}
}

func newExactHeadline(h *accounting.Headline) *exactHeadline {
	e := &exactHeadline{Headline: *h}
	for _, p := range e.ratios() {
		*p[0] = *p[1]
	}
	return e
}

func (h *exactHeadline) headline() accounting.Headline {
	for _, p := range h.ratios() {
		*p[1] = *p[0]
	}
	return h.Headline
}

// exactRatio is a float written as a JSON number when finite, else as the
// string "NaN", "+Inf" or "-Inf".
type exactRatio float64

// MarshalJSON implements json.Marshaler.
func (r exactRatio) MarshalJSON() ([]byte, error) {
	f := float64(r)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return strconv.AppendQuote(nil, strconv.FormatFloat(f, 'g', -1, 64)), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (r *exactRatio) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("ratio %s: %w", b, err)
	}
	*r = exactRatio(f)
	return nil
}

// WriteSweepShard writes one shard of a sweep as an indented JSON
// document: the shard, the sweep's identity, and the shard's rows with
// exact figures.
func WriteSweepShard(w io.Writer, p *sweep.Part) error {
	grid := 1
	doc := shardDoc{Format: ShardFormat, Shard: shardPosition{Index: p.Shard.Index, Count: p.Shard.Count},
		Sweep: shardIdentity{Params: []shardParam{}, Data: p.Sweep.Data, Config: p.Sweep.Config, Seed: p.Sweep.Seed, Build: p.Sweep.Build,
			Settings: p.Sweep.Settings},
		Rows: make([]shardRow, len(p.Rows))}
	for _, pa := range p.Sweep.Params {
		doc.Sweep.Params = append(doc.Sweep.Params, shardParam{Key: pa.Key, Values: pa.Values})
		grid *= len(pa.Values)
	}
	doc.Sweep.Combinations = grid
	for i := range p.Rows {
		r := &p.Rows[i]
		doc.Rows[i] = shardRow{Run: r.Combo.Index, Values: r.Combo.Values}
		if r.Err != nil {
			doc.Rows[i].Err = r.Err.Error()
		} else {
			doc.Rows[i].Results = newExactHeadline(&r.Headline)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(&doc)
}

// ReadSweepShard reads what WriteSweepShard wrote; name (a file's path)
// names the part in Merge's messages. It refuses any other document.
func ReadSweepShard(r io.Reader, name string) (sweep.Part, error) {
	var doc shardDoc
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return sweep.Part{}, fmt.Errorf("%s: not a sweep shard: %w", name, err)
	}
	if dec.More() {
		return sweep.Part{}, fmt.Errorf("%s: not a sweep shard: more than one JSON value", name)
	}
	if doc.Format != ShardFormat {
		return sweep.Part{}, fmt.Errorf("%s: not a sweep shard: format %q, want %q", name, doc.Format, ShardFormat)
	}
	p := sweep.Part{Name: name, Shard: sweep.Shard{Index: doc.Shard.Index, Count: doc.Shard.Count},
		Sweep: sweep.Identity{Data: doc.Sweep.Data, Config: doc.Sweep.Config, Seed: doc.Sweep.Seed, Build: doc.Sweep.Build,
			Settings: doc.Sweep.Settings},
		Rows: make([]sweep.Row, len(doc.Rows))}
	for _, pa := range doc.Sweep.Params {
		p.Sweep.Params = append(p.Sweep.Params, sweep.Param{Key: pa.Key, Values: pa.Values})
	}
	grid, err := sweep.Grid(p.Sweep.Params)
	if err != nil {
		return p, fmt.Errorf("%s: %w", name, err)
	}
	if len(grid) != doc.Sweep.Combinations {
		return p, fmt.Errorf("%s: the grid has %d combinations, not %d", name, len(grid), doc.Sweep.Combinations)
	}
	keys := p.Sweep.Keys()
	for i, dr := range doc.Rows {
		if len(dr.Values) != len(keys) {
			return p, fmt.Errorf("%s: row %d (run %d) has %d values for %d keys", name, i, dr.Run, len(dr.Values), len(keys))
		}
		row := sweep.Row{Combo: sweep.Combo{Index: dr.Run, Keys: keys, Values: dr.Values}}
		switch {
		case dr.Results != nil && dr.Err != "":
			return p, fmt.Errorf("%s: row %d (run %d) has both results and an error", name, i, dr.Run)
		case dr.Results == nil:
			row.Err = errors.New(dr.Err)
		default:
			row.Headline = dr.Results.headline()
		}
		p.Rows[i] = row
	}
	return p, nil
}
