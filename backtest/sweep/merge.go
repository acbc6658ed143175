package sweep

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// The errors Merge wraps, for errors.Is.
var (
	// ErrDifferentSweeps: the parts are not all of one sweep (grid, data,
	// configuration, seed, build or shard count differ).
	ErrDifferentSweeps = errors.New("shards of different sweeps")
	// ErrMissingShard: a shard of the sweep is not among the parts.
	ErrMissingShard = errors.New("missing shard")
	// ErrDuplicateShard: two parts are the same shard.
	ErrDuplicateShard = errors.New("duplicate shard")
	// ErrBadShard: a part's rows are not its shard's combinations.
	ErrBadShard = errors.New("bad shard")
)

// Identity names a sweep: what its rows depend on. Shards of one sweep
// have equal identities. The digests are opaque strings, compared whole.
type Identity struct {
	Params []Param // the grid, in the order of the --sweep flags
	Data   string  // the recording's digest ("sha256:...")
	Config string  // the digest of the effective configuration and replay flags
	Seed   uint64
	Build  string // the program that ran it (version, revision, Go, platform)
	// Settings are the lines that Config digests ("key = value"), if
	// known: Diff names the first that differs.
	Settings []string
}

// Keys returns the swept keys in order.
func (id *Identity) Keys() []string {
	keys := make([]string, len(id.Params))
	for i, p := range id.Params {
		keys[i] = p.Key
	}
	return keys
}

// Diff names the first thing that differs between id and o, with both
// values, or returns "" when they are the same sweep.
func (id *Identity) Diff(o *Identity) string {
	grid := func(ps []Param) string {
		parts := make([]string, len(ps))
		for i, p := range ps {
			parts[i] = p.Key + "=" + strings.Join(p.Values, ",")
		}
		return strings.Join(parts, " ")
	}
	for _, f := range []struct{ what, a, b string }{
		{"grid", grid(id.Params), grid(o.Params)},
		{"recording", id.Data, o.Data},
		{"seed", strconv.FormatUint(id.Seed, 10), strconv.FormatUint(o.Seed, 10)},
		{"build", id.Build, o.Build},
		{"configuration", id.Config, o.Config},
	} {
		if f.a == f.b {
			continue
		}
		if f.what == "configuration" {
			for i := 0; i < min(len(id.Settings), len(o.Settings)); i++ {
				if id.Settings[i] != o.Settings[i] {
					return fmt.Sprintf("configuration %q against %q", id.Settings[i], o.Settings[i])
				}
			}
		}
		return fmt.Sprintf("%s %q against %q", f.what, f.a, f.b)
	}
	return ""
}

// Part is the outcome of one shard of a sweep: its rows, in grid order.
type Part struct {
	Sweep Identity
	Shard Shard
	Rows  []Row
	// Name says where the part came from (a file), for messages.
	Name string
}

// Merge joins the parts of one sweep into the rows that the whole sweep
// run in one process gives, in grid order. It refuses parts of different
// sweeps, a missing or duplicate shard, and a part whose rows are not
// exactly its shard's combinations (each error wraps one of the Err
// values above). It returns the sweep's identity with the rows.
func Merge(parts []Part) (Identity, []Row, error) {
	if len(parts) == 0 {
		return Identity{}, nil, fmt.Errorf("%w: no shard to merge", ErrMissingShard)
	}
	// Sorted by shard, so that the messages do not depend on the order
	// the parts were given in.
	ps := slices.Clone(parts)
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Shard.Index != ps[j].Shard.Index {
			return ps[i].Shard.Index < ps[j].Shard.Index
		}
		return ps[i].Name < ps[j].Name
	})
	first := &ps[0]
	id, n := first.Sweep, first.Shard.Count
	for i := range ps {
		p := &ps[i]
		if err := p.Shard.Check(); err != nil {
			return id, nil, fmt.Errorf("%w: %s: %w", ErrBadShard, p.Name, err)
		}
		if d := first.Sweep.Diff(&p.Sweep); d != "" {
			return id, nil, fmt.Errorf("%w: %s and %s: %s", ErrDifferentSweeps, first.Name, p.Name, d)
		}
		if p.Shard.Count != n {
			return id, nil, fmt.Errorf("%w: %s is shard %s, %s is shard %s: not the same number of shards", ErrDifferentSweeps,
				first.Name, first.Shard, p.Name, p.Shard)
		}
		if i > 0 && ps[i-1].Shard.Index == p.Shard.Index {
			return id, nil, fmt.Errorf("%w: %s and %s are both shard %s", ErrDuplicateShard, ps[i-1].Name, p.Name, p.Shard)
		}
	}
	if len(ps) < n {
		var missing []string
		have := 0
		for i := 0; i < n && len(missing) < 10; i++ {
			if have < len(ps) && ps[have].Shard.Index == i {
				have++
				continue
			}
			missing = append(missing, strconv.Itoa(i))
		}
		more := ""
		if k := n - len(ps); k > len(missing) {
			more = fmt.Sprintf(" and %d more", k-len(missing))
		}
		return id, nil, fmt.Errorf("%w: have %d of %d shards; missing %s%s", ErrMissingShard, len(ps), n, strings.Join(missing, ", "), more)
	}
	grid, err := Grid(id.Params)
	if err != nil {
		return id, nil, fmt.Errorf("%w: %s: %w", ErrBadShard, first.Name, err)
	}
	rows := make([]Row, len(grid))
	for i := range ps {
		p := &ps[i]
		want := p.Shard.Of(grid)
		if len(p.Rows) != len(want) {
			return id, nil, fmt.Errorf("%w: %s (shard %s) has %d rows; the shard has %d combinations", ErrBadShard, p.Name, p.Shard, len(p.Rows), len(want))
		}
		for j := range want {
			r := p.Rows[j]
			if r.Combo.Index != want[j].Index || !slices.Equal(r.Combo.Values, want[j].Values) {
				return id, nil, fmt.Errorf("%w: %s (shard %s): row %d is run %d (%s); want run %d (%s)", ErrBadShard, p.Name, p.Shard, j,
					r.Combo.Index, strings.Join(r.Combo.Values, " "), want[j].Index, want[j])
			}
			r.Combo = want[j]
			rows[want[j].Index] = r
		}
	}
	return id, rows, nil
}
