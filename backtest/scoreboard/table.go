package scoreboard

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/fillmodel"
)

// Doc is what Write renders.
type Doc struct {
	Command   string // the command that regenerates the table
	Default   string // the default configuration's model
	Seed      uint64 // the fill model's seed of the first replica
	Seeds     int    // replicas per scenario
	Scenarios []Scenario
	Rows      []Row
}

// benchmark is the model the aims compare the default with.
const benchmark = "naive"

// Write renders the scenarios, the table and the aims as Markdown. The
// output depends only on doc: fixed decimals, rows in doc's order. Every
// figure is a mean over the seeds ± the half-width of its 95% t-interval.
func Write(w io.Writer, doc *Doc) error {
	var b strings.Builder
	k := max(1, doc.Seeds)
	fmt.Fprintf(&b, "Regenerate with `%s`: %d seeds per scenario (scenario seed + k × %d, fill-model seed %d + k, k = 0…%d).\n\n",
		doc.Command, k, SeedStride, doc.Seed, k-1)
	b.WriteString("| scenario | duration | markets | what |\n|---|---|---|---|\n")
	for _, s := range doc.Scenarios {
		fmt.Fprintf(&b, "| %s | %s | %d | %s (first seed %d) |\n", s.Name, s.Duration, countMarkets(doc.Rows, s), s.About, s.Seed)
	}
	b.WriteString("\nEach cell: the mean over the seeds ± the half-width of its 95% t-interval. PnL and drawdown in collateral, " +
		"PnL per notional in basis points of the collateral traded, PnL per fill and markouts in cents (per fill, per share); " +
		"markout: side × (mid 60 s later − fill price), the realized spread; mid-to-mid: side × (mid 60 s later − mid at the fill), " +
		"the adverse selection; inventory sd in shares; breaches summed over the seeds; a dash: undefined.\n\n")
	b.WriteString("| scenario | model | fills model | PnL | PnL/notional bps | PnL/fill ¢ | fills | markout 60s | mid-to-mid 10s | mid-to-mid 60s | inv sd | max DD | reward share | reward est. | orders/fill | breaches |\n")
	b.WriteString("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, g := range groups(doc.Rows) {
		model := g.model
		if model == doc.Default {
			model += " (default)"
		}
		reward, est := "–", "–"
		if g.rows[0].pays || !math.IsNaN(g.rows[0].RewardShare) {
			reward = pm(g.series(func(r *Row) float64 { return 100 * r.RewardShare }), 1) + "%"
		}
		if g.rows[0].pays {
			est = pm(g.series(func(r *Row) float64 { return r.Reward.InexactFloat64() }), 2)
		}
		breaches := 0
		for _, r := range g.rows {
			breaches += r.Breaches
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d |\n",
			g.scenario, model, g.mode,
			pm(g.series(pnl), 2), pm(g.series(perNotional), 1), pm(g.series(perFill), 2),
			pm(g.series(func(r *Row) float64 { return float64(r.Fills) }), 0),
			pm(g.series(func(r *Row) float64 { return 100 * r.Markout60s }), 2),
			pm(g.series(func(r *Row) float64 { return 100 * r.MidMarkout10s }), 2),
			pm(g.series(func(r *Row) float64 { return 100 * r.MidMarkout60s }), 2),
			pm(g.series(func(r *Row) float64 { return r.InventorySD }), 1),
			pm(g.series(func(r *Row) float64 { return r.MaxDrawdown.InexactFloat64() }), 2),
			reward, est,
			pm(g.series(func(r *Row) float64 { return r.OrdersPerFill() }), 1), breaches)
	}
	writeAims(&b, doc)
	_, err := io.WriteString(w, b.String())
	return err
}

func pnl(r *Row) float64 { return r.PnL.InexactFloat64() }

// perNotional is the PnL in basis points of the collateral traded.
func perNotional(r *Row) float64 {
	n := r.Notional.InexactFloat64()
	if n <= 0 {
		return math.NaN()
	}
	return 1e4 * r.PnL.InexactFloat64() / n
}

// perFill is the PnL per fill in cents.
func perFill(r *Row) float64 {
	if r.Fills == 0 {
		return math.NaN()
	}
	return 100 * r.PnL.InexactFloat64() / float64(r.Fills)
}

// pm formats an interval as "mean ± half".
func pm(iv interval, decimals int) string {
	if math.IsNaN(iv.half) {
		return num(iv.mean, decimals)
	}
	return num(iv.mean, decimals) + " ± " + strings.TrimPrefix(num(iv.half, decimals), "-")
}

// group is the rows of one scenario, model and fill mode, one per seed.
type group struct {
	scenario, model string
	mode            fillmodel.Mode
	rows            []*Row
}

// series is f over the group's seeds, as an interval.
func (g *group) series(f func(*Row) float64) interval {
	xs := make([]float64, len(g.rows))
	for i, r := range g.rows {
		xs[i] = f(r)
	}
	return tInterval(xs)
}

// groups gathers the rows by scenario, model and mode, in the order of
// their first rows, each group's rows by seed.
func groups(rows []Row) []*group {
	var out []*group
	at := map[string]*group{}
	for i := range rows {
		r := &rows[i]
		key := r.Scenario + "\x00" + r.Model + "\x00" + string(r.Mode)
		g, ok := at[key]
		if !ok {
			g = &group{scenario: r.Scenario, model: r.Model, mode: r.Mode}
			at[key] = g
			out = append(out, g)
		}
		g.rows = append(g.rows, r)
	}
	for _, g := range out {
		sort.SliceStable(g.rows, func(i, j int) bool { return g.rows[i].Rep < g.rows[j].Rep })
	}
	return out
}

// countMarkets is how many markets a scenario's runs saw (from its first
// row; the generated catalog may hold closed ones).
func countMarkets(rows []Row, s Scenario) int {
	for _, r := range rows {
		if r.Scenario == s.Name {
			return r.markets
		}
	}
	return 0
}

// perSeed is f of a model's rows of a scenario, averaged over the fill
// modes, one value per seed (NaN where every mode's is).
func perSeed(rows []Row, scenario, model string, f func(*Row) float64) []float64 {
	sum, n := map[int]float64{}, map[int]int{}
	reps := 0
	for i := range rows {
		r := &rows[i]
		if r.Scenario != scenario || r.Model != model {
			continue
		}
		reps = max(reps, r.Rep+1)
		if v := f(r); !math.IsNaN(v) && !math.IsInf(v, 0) {
			sum[r.Rep] += v
			n[r.Rep]++
		}
	}
	out := make([]float64, reps)
	for k := range out {
		out[k] = math.NaN()
		if n[k] > 0 {
			out[k] = sum[k] / float64(n[k])
		}
	}
	return out
}

// writeAims checks the aims for the default model, scenario by
// scenario, on per-seed means over the fill models: an aim is won when the
// 95% interval over the seeds (of the figure, or of its difference from
// the naive quoter's paired by seed) lies above zero, lost when it lies
// below, a tie otherwise.
func writeAims(b *strings.Builder, doc *Doc) {
	fmt.Fprintf(b, "\nAims for the default model (%s), per seed the mean over the fill models; won: the 95%% interval over the seeds "+
		"lies above zero, lost: below, tie: it holds zero:\n\n", doc.Default)
	b.WriteString("| scenario | aim | default | " + benchmark + " | default − " + benchmark + " (paired) | result |\n|---|---|--:|--:|--:|---|\n")
	plusReward := func(r *Row) float64 { return r.PnL.InexactFloat64() + r.Reward.InexactFloat64() }
	mid60 := func(r *Row) float64 { return 100 * r.MidMarkout60s }
	for _, s := range doc.Scenarios {
		def := perSeed(doc.Rows, s.Name, doc.Default, pnl)
		if len(def) == 0 {
			continue
		}
		bench := perSeed(doc.Rows, s.Name, benchmark, pnl)
		switch s.Name {
		case "calm", "trending":
			iv := tInterval(def)
			fmt.Fprintf(b, "| %s | PnL > 0 | %s | %s | %s | %s |\n", s.Name, pm(iv, 2), pm(tInterval(bench), 2),
				pm(tInterval(paired(def, bench)), 2), iv.verdict())
		case "rewards":
			d, n := perSeed(doc.Rows, s.Name, doc.Default, plusReward), perSeed(doc.Rows, s.Name, benchmark, plusReward)
			iv := tInterval(d)
			fmt.Fprintf(b, "| %s | PnL + reward est. > 0 | %s | %s | %s | %s |\n", s.Name, pm(iv, 2), pm(tInterval(n), 2),
				pm(tInterval(paired(d, n)), 2), iv.verdict())
		case "informed", "jumps":
			iv := tInterval(paired(def, bench))
			fmt.Fprintf(b, "| %s | loses less than %s | %s | %s | %s | %s |\n", s.Name, benchmark, pm(tInterval(def), 2),
				pm(tInterval(bench), 2), pm(iv, 2), iv.verdict())
		}
		d, n := perSeed(doc.Rows, s.Name, doc.Default, mid60), perSeed(doc.Rows, s.Name, benchmark, mid60)
		iv := tInterval(paired(d, n))
		fmt.Fprintf(b, "| %s | 60 s mid-to-mid markout better than %s (¢) | %s | %s | %s | %s |\n", s.Name, benchmark,
			pm(tInterval(d), 2), pm(tInterval(n), 2), pm(iv, 2), iv.verdict())
	}
}

// num formats f with the given decimals; "–" when not finite, and never
// "-0.00".
func num(f float64, decimals int) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "–"
	}
	s := strconv.FormatFloat(f, 'f', decimals, 64)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	return s
}

func money(d decimal.Decimal) string {
	s := d.StringFixed(2)
	if s == "-0.00" {
		return "0.00"
	}
	return s
}
