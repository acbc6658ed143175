package catalog

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

var (
	tagLabels = []string{"Politics", "Sports", "Crypto", "Economics", "Science", "Culture", "Weather", "Tech", "World", "Business"}
	subjects  = []string{"the central bank", "the senate", "a major exchange", "the league", "the space agency", "the city council",
		"the champion", "the tech giant", "the ministry", "the festival", "the orbital launch", "the union", "the court", "the summit"}
	verbs = []string{"announce a rate cut", "pass the budget", "list the token", "win the final", "reach orbit", "approve the plan",
		"hit a record high", "ship the product", "sign the treaty", "sell out", "settle the dispute", "cancel the event", "beat estimates"}
	teams      = []string{"Otters", "Falcons", "Comets", "Pioneers", "Harbors", "Ravens", "Glaciers", "Lanterns", "Meteors", "Orchards"}
	candidates = []string{"Avery", "Blake", "Casey", "Devon", "Emery", "Finley", "Harper", "Jordan", "Kendall", "Morgan", "Quinn", "Rowan"}
	contests   = []string{"the mayoral race", "the chess open", "the film award", "the marathon", "the cooking cup", "the science prize"}
	seriesDefs = []struct{ title, recurrence string }{
		{"Daily crypto close", "daily"}, {"Weekly jobs report", "weekly"}, {"Monthly inflation print", "monthly"}, {"League matchdays", "weekly"},
	}
	spreadsCents = []string{"1", "1.5", "2", "3", "3.5", "4.5", "5"}
	rewardSizes  = []int64{10, 20, 50, 100, 200}
	dailyRates   = []int64{0, 1, 5, 10, 25, 50, 100}
)

// gen carries the state of one generation.
type gen struct {
	seed uint64
	r    *rand.Rand
	base time.Time
}

// hash returns a seed-derived 32-byte digest of its parts.
func (g *gen) hash(parts ...any) [32]byte {
	h := sha256.New()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], g.seed)
	h.Write(b[:])
	fmt.Fprint(h, parts...)
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

func (g *gen) hex32(parts ...any) string {
	h := g.hash(parts...)
	return "0x" + hex.EncodeToString(h[:])
}

func (g *gen) tokenID(parts ...any) string {
	h := g.hash(parts...)
	return new(big.Int).SetBytes(h[:]).String()
}

func (g *gen) pick(ss []string) string { return ss[g.r.IntN(len(ss))] }

func (g *gen) days(lo, hi int) time.Duration {
	return time.Duration(lo+g.r.IntN(hi-lo+1)) * 24 * time.Hour
}

// Creators returns the creator identifiers of a generated catalog: two
// wallet addresses and one site identifier, all derived from the seed.
func Creators(seed uint64) []string {
	g := &gen{seed: seed}
	return []string{g.hex32("creator", 0)[:42], g.hex32("creator", 1)[:42], "sim-site"}
}

// Generate builds a catalog of n markets (n >= 1) from seed. Dates are
// placed around base (truncated to the second): most events are open and
// end 2 to 90 days after it, about one in ten ended before it and is closed.
// The same seed, n and base give an identical catalog.
func Generate(seed uint64, n int, base time.Time) (*Catalog, error) {
	if n < 1 {
		return nil, fmt.Errorf("catalog: market count %d must be at least 1", n)
	}
	g := &gen{seed: seed, r: rand.New(rand.NewPCG(seed, 0x636174616c6f67)), base: base.UTC().Truncate(time.Second)}
	c := &Catalog{}
	for i, l := range tagLabels {
		c.Tags = append(c.Tags, Tag{ID: int64(100 + i), Label: l, Slug: slugify(l), CreatedAt: g.base.Add(-g.days(200, 400))})
	}
	for i, s := range seriesDefs {
		c.Series = append(c.Series, Series{
			ID: int64(200 + i), Ticker: slugify(s.title), Slug: slugify(s.title), Title: s.title, SeriesType: "single",
			Recurrence: s.recurrence, Image: imageURL("series", i), Icon: imageURL("series-icon", i),
			Active: true, CreatedAt: g.base.Add(-g.days(100, 300)),
		})
	}
	creators := Creators(seed)
	for ev := 0; len(c.Markets) < n; ev++ {
		g.event(c, ev, n-len(c.Markets), creators)
	}
	if _, err := NewIndex(c); err != nil {
		return nil, err
	}
	return c, nil
}

// event appends one event with up to room markets.
func (g *gen) event(c *Catalog, ev, room int, creators []string) {
	e := Event{ID: int64(10_000 + ev), Creator: creators[g.r.IntN(len(creators))], Active: true}
	e.CreatedAt = g.base.Add(-g.days(3, 120))
	e.StartDate = e.CreatedAt.Add(time.Hour)
	if g.r.IntN(10) == 0 {
		e.Closed = true
		e.EndDate = g.base.Add(-g.days(1, 20))
		e.Archived = g.r.IntN(3) == 0
	} else {
		e.EndDate = g.base.Add(g.days(2, 90))
	}
	type mk struct {
		question string
		outcomes [2]string
	}
	var markets []mk
	switch k := g.r.IntN(20); {
	case k < 12 || room == 1: // one yes/no market
		q := fmt.Sprintf("Will %s %s by %s?", g.pick(subjects), g.pick(verbs), e.EndDate.Format("January 2"))
		e.Title = q
		markets = append(markets, mk{q, [2]string{"Yes", "No"}})
	case k < 15: // a match between two teams
		a := g.r.IntN(len(teams))
		b := (a + 1 + g.r.IntN(len(teams)-1)) % len(teams)
		e.Title = fmt.Sprintf("%s vs. %s", teams[a], teams[b])
		markets = append(markets, mk{e.Title, [2]string{teams[a], teams[b]}})
	default: // who wins: mutually exclusive yes/no markets, neg risk when three or more
		contest := g.pick(contests)
		e.Title = "Who will win " + contest + "?"
		k := min(room, 2+g.r.IntN(4))
		off := g.r.IntN(len(candidates))
		for j := 0; j < k; j++ {
			name := candidates[(off+j)%len(candidates)]
			markets = append(markets, mk{fmt.Sprintf("Will %s win %s?", name, contest), [2]string{"Yes", "No"}})
		}
		if k >= 3 {
			e.NegRisk = true
			e.NegRiskMarketID = g.hex32("negrisk", ev)
		}
	}
	e.Slug = fmt.Sprintf("%s-%d", slugify(e.Title), e.ID)
	e.Ticker = e.Slug
	e.Description = "Simulated event: " + e.Title + " Resolves by the simulated exchange's own fair-value process."
	e.ResolutionSource = "https://sim.invalid/resolution"
	e.Image, e.Icon = imageURL("event", ev), imageURL("event-icon", ev)
	e.Metadata = map[string]any{"simulated": true}
	for t := 0; t < 1+g.r.IntN(3); t++ {
		id := c.Tags[g.r.IntN(len(c.Tags))].ID
		if !containsID(e.TagIDs, id) {
			e.TagIDs = append(e.TagIDs, id)
		}
	}
	if g.r.IntN(3) == 0 {
		e.SeriesIDs = []int64{c.Series[g.r.IntN(len(c.Series))].ID}
	}
	var tagNames []string
	for _, id := range e.TagIDs {
		tagNames = append(tagNames, c.Tags[id-100].Label)
	}
	prices := g.prices(len(markets), e.NegRisk)
	for j, m := range markets {
		idx := len(c.Markets)
		cm := Market{
			ID: int64(500_000 + idx), EventID: e.ID, Question: m.question, Outcomes: m.outcomes,
			ConditionID: g.hex32("condition", idx), QuestionID: g.hex32("question", idx),
			TokenIDs:  [2]string{g.tokenID("token", idx, 0), g.tokenID("token", idx, 1)},
			StartDate: e.StartDate, EndDate: e.EndDate, CreatedAt: e.CreatedAt,
			Active: true, Closed: e.Closed, Archived: e.Archived,
			NegRisk: e.NegRisk, NegRiskMarketID: e.NegRiskMarketID, Winner: -1,
			Description:      "Simulated market. " + m.question,
			ResolutionSource: e.ResolutionSource, Image: imageURL("market", idx), Icon: imageURL("market-icon", idx),
			Tags: tagNames, InitialPrice: prices[j],
		}
		cm.Slug = fmt.Sprintf("%s-%d", slugify(m.question), cm.ID)
		if e.NegRisk {
			cm.NegRiskRequestID = g.hex32("negrisk-request", idx)
		}
		g.terms(&cm)
		if e.Closed {
			cm.Winner = 1
			if g.r.Float64() < prices[j].InexactFloat64() {
				cm.Winner = 0
			}
		}
		c.Markets = append(c.Markets, cm)
		e.MarketIDs = append(e.MarketIDs, cm.ID)
	}
	c.Events = append(c.Events, e)
}

// terms draws tick, minimum size, rewards and fees.
func (g *gen) terms(m *Market) {
	switch k := g.r.IntN(20); {
	case k < 12:
		m.TickSize = Ticks[1]
	case k < 17:
		m.TickSize = Ticks[2]
	case k < 19:
		m.TickSize = Ticks[3]
	default:
		m.TickSize = Ticks[0]
	}
	minSizes := []int64{5, 5, 5, 5, 5, 5, 1, 10, 15}
	m.MinOrderSize = decimal.NewFromInt(minSizes[g.r.IntN(len(minSizes))])
	rs := rewardSizes[g.r.IntN(len(rewardSizes))]
	m.Rewards = Rewards{
		MaxSpread: decimal.RequireFromString(g.pick(spreadsCents)),
		MinSize:   decimal.NewFromInt(max(rs, m.MinOrderSize.IntPart())),
		DailyRate: decimal.NewFromInt(dailyRates[g.r.IntN(len(dailyRates))]),
	}
	if g.r.IntN(10) == 0 {
		m.TakerBaseFee = 100
	}
	// keep the initial price inside the tick grid's open range
	lo, hi := m.TickSize, decimal.NewFromInt(1).Sub(m.TickSize)
	m.InitialPrice = decimal.Min(decimal.Max(m.InitialPrice, lo), hi)
}

// prices draws initial fair prices: independent for plain markets, summing
// to about one for a neg-risk event.
func (g *gen) prices(k int, negRisk bool) []decimal.Decimal {
	out := make([]decimal.Decimal, k)
	if !negRisk {
		for i := range out {
			out[i] = decimal.NewFromFloat(0.05 + 0.9*g.r.Float64()).Round(3)
		}
		return out
	}
	w := make([]float64, k)
	sum := 0.0
	for i := range w {
		w[i] = 0.2 + g.r.ExpFloat64()
		sum += w[i]
	}
	for i := range out {
		p := decimal.NewFromFloat(w[i] / sum).Round(3)
		out[i] = decimal.Min(decimal.Max(p, decimal.RequireFromString("0.01")), decimal.RequireFromString("0.99"))
	}
	return out
}

func containsID(ids []int64, id int64) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func imageURL(kind string, i int) string {
	return fmt.Sprintf("https://sim.invalid/img/%s-%d.png", kind, i)
}

// slugify lower-cases s and joins its letters and digits with dashes.
func slugify(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	return b.String()
}
