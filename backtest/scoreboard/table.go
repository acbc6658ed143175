package scoreboard

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// Doc is what Write renders.
type Doc struct {
	Command   string // the command that regenerates the table
	Default   string // the default configuration's model
	Seed      uint64 // the fill model's seed
	Scenarios []Scenario
	Rows      []Row
}

// Write renders the scenarios, the table and the aims as Markdown. The
// output depends only on doc: fixed decimals, rows in doc's order.
func Write(w io.Writer, doc *Doc) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Regenerate with `%s` (fill-model seed %d).\n\n", doc.Command, doc.Seed)
	b.WriteString("| scenario | duration | markets | what |\n|---|---|---|---|\n")
	for _, s := range doc.Scenarios {
		fmt.Fprintf(&b, "| %s | %s | %d | %s (seed %d) |\n", s.Name, s.Duration, countMarkets(doc.Rows, s), s.About, s.Seed)
	}
	b.WriteString("\nPnL, drawdown and reward estimate in collateral; markouts in cents per share, mean per fill; " +
		"inventory sd in shares; a dash: undefined (no fill, no reward).\n\n")
	b.WriteString("| scenario | model | fills model | PnL | PnL sd/min | max DD | inv sd | fills | volume | markout 10s | markout 60s | reward share | reward est. | orders/fill | breaches |\n")
	b.WriteString("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for i := range doc.Rows {
		r := &doc.Rows[i]
		model := r.Model
		if model == doc.Default {
			model += " (default)"
		}
		reward := "–"
		if !math.IsNaN(r.RewardShare) {
			reward = num(100*r.RewardShare, 1) + "%"
		}
		est := "–"
		if r.pays {
			est = money(r.Reward)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %d | %s | %s | %s | %s | %s | %s | %d |\n",
			r.Scenario, model, r.Mode, money(r.PnL), num(r.PnLSD, 2), money(r.MaxDrawdown), num(r.InventorySD, 1),
			r.Fills, money(r.Volume), num(100*r.Markout10s, 2), num(100*r.Markout60s, 2), reward, est,
			num(r.OrdersPerFill(), 1), r.Breaches)
	}
	writeAims(&b, doc)
	_, err := io.WriteString(w, b.String())
	return err
}

// countMarkets is how many markets a scenario's runs saw (from its rows'
// scenario; the generated catalog may hold closed ones).
func countMarkets(rows []Row, s Scenario) int {
	for _, r := range rows {
		if r.Scenario == s.Name {
			return r.markets
		}
	}
	return 0
}

// writeAims checks the aims for the default model, scenario by
// scenario, on the mean over the fill models.
func writeAims(b *strings.Builder, doc *Doc) {
	fmt.Fprintf(b, "\nAims for the default model (%s), means over the fill models:\n\n", doc.Default)
	b.WriteString("| scenario | aim | default | bands | met |\n|---|---|--:|--:|---|\n")
	for _, s := range doc.Scenarios {
		def, okD := meanOf(doc.Rows, s.Name, doc.Default)
		bands, okB := meanOf(doc.Rows, s.Name, "bands")
		if !okD {
			continue
		}
		same := doc.Default == "bands"
		switch s.Name {
		case "calm", "trending":
			fmt.Fprintf(b, "| %s | PnL > 0 | %s | %s | %s |\n", s.Name, num(def.pnl, 2), num(bands.pnl, 2), yes(def.pnl > 0))
		case "rewards":
			fmt.Fprintf(b, "| %s | PnL + reward est. > 0 | %s | %s | %s |\n", s.Name, num(def.pnl+def.reward, 2),
				num(bands.pnl+bands.reward, 2), yes(def.pnl+def.reward > 0))
		case "informed", "jumps":
			met := "n/a: the default is bands"
			if !same && okB {
				met = yes(def.pnl > bands.pnl)
			}
			fmt.Fprintf(b, "| %s | loses less than bands | %s | %s | %s |\n", s.Name, num(def.pnl, 2), num(bands.pnl, 2), met)
		}
		met := "n/a: the default is bands"
		if !same && okB {
			met = yes(def.markout60 > bands.markout60)
		}
		fmt.Fprintf(b, "| %s | 60 s markout better than bands (cents) | %s | %s | %s |\n", s.Name,
			num(100*def.markout60, 2), num(100*bands.markout60, 2), met)
	}
}

type means struct{ pnl, reward, markout60 float64 }

// meanOf averages a model's rows of a scenario over the fill models.
func meanOf(rows []Row, scenario, model string) (means, bool) {
	var m means
	n := 0
	for _, r := range rows {
		if r.Scenario != scenario || r.Model != model {
			continue
		}
		p, _ := r.PnL.Float64()
		w, _ := r.Reward.Float64()
		m.pnl += p
		m.reward += w
		m.markout60 += r.Markout60s
		n++
	}
	if n == 0 {
		return m, false
	}
	m.pnl /= float64(n)
	m.reward /= float64(n)
	m.markout60 /= float64(n)
	return m, true
}

func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
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
