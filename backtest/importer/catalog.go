package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy"
)

// Catalog is a catalog snapshot as ReadCatalog read it: the markets it
// uses and the listed markets it skipped.
type Catalog struct {
	Markets []Market
	// Skipped are the listed markets without a usable token: the live
	// listing holds placeholder and inactive markets whose tokens have an
	// empty token_id (and minimum_order_size 0). They are named here, and
	// in the import's summary, instead of failing the whole snapshot.
	Skipped []SkippedMarket
}

// SkippedMarket is a listed market that a catalog snapshot does not use.
type SkippedMarket struct {
	ConditionID string `json:"condition_id"`
	Reason      string `json:"reason"`
}

// ReadCatalog reads a catalog snapshot: the order-book API's market objects
// as GET /markets returns them (docs/data-format.md). The input is a
// sequence of JSON values, each one of
//
//   - a page of GET /markets, {"data": [market, …], "next_cursor": …};
//   - an array of market objects (mmbot markets --json);
//   - one market object (GET /markets/{condition_id}).
//
// so the pages of a listing saved one after the other are a snapshot too.
// A market listed twice keeps its last listing. Gzip input is
// decompressed. A market with a token that has no token_id (a placeholder
// or inactive market of the live listing) is skipped and listed in
// Catalog.Skipped; a market without condition_id, or with an end date that
// is not a date, fails the snapshot. The markets' terms are checked when an
// import uses them.
func ReadCatalog(r io.Reader) (*Catalog, error) {
	br, closeGz, err := gunzip(r)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	defer closeGz()
	dec := json.NewDecoder(br)
	var (
		out     []Market
		skipped []SkippedMarket
		index   = map[string]int{} // by lower-case condition id: ≥ 0 in out, < 0 in skipped (−1 − i)
	)
	add := func(m *exchange.Market) error {
		cm, err := CatalogMarket(m)
		var ph *placeholderError
		if err != nil && !errors.As(err, &ph) {
			return err
		}
		key := strings.ToLower(m.ConditionID)
		if i, ok := index[key]; ok { // the last listing wins: drop the earlier one
			if i >= 0 {
				out[i].ConditionID = ""
			} else {
				skipped[-1-i].ConditionID = ""
			}
		}
		if ph != nil {
			index[key] = -1 - len(skipped)
			skipped = append(skipped, SkippedMarket{ConditionID: m.ConditionID, Reason: ph.reason})
			return nil
		}
		index[key] = len(out)
		out = append(out, cm)
		return nil
	}
	for n := 1; ; n++ {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return &Catalog{Markets: compactMarkets(out), Skipped: compactSkipped(skipped)}, nil
		}
		if err != nil {
			return nil, fmt.Errorf("catalog: value %d: %w", n, err)
		}
		ms, err := catalogValue(bytes.TrimSpace(raw))
		if err != nil {
			return nil, fmt.Errorf("catalog: value %d: %w", n, err)
		}
		for i := range ms {
			if err := add(&ms[i]); err != nil {
				return nil, fmt.Errorf("catalog: value %d: %w", n, err)
			}
		}
	}
}

// LoadCatalog returns the markets of ReadCatalog (the skipped ones are
// left out; ReadCatalog names them).
func LoadCatalog(r io.Reader) ([]Market, error) {
	c, err := ReadCatalog(r)
	if err != nil {
		return nil, err
	}
	return c.Markets, nil
}

// catalogValue reads the markets of one value of a catalog snapshot.
func catalogValue(raw json.RawMessage) ([]exchange.Market, error) {
	var ms []exchange.Market
	var err error
	switch {
	case len(raw) > 0 && raw[0] == '[':
		err = json.Unmarshal(raw, &ms)
	case len(raw) > 0 && raw[0] == '{':
		var probe struct {
			Data        *[]exchange.Market `json:"data"`
			ConditionID string             `json:"condition_id"`
		}
		if err = json.Unmarshal(raw, &probe); err != nil {
			break
		}
		switch {
		case probe.Data != nil:
			ms = *probe.Data
		case probe.ConditionID != "":
			var m exchange.Market
			err = json.Unmarshal(raw, &m)
			ms = []exchange.Market{m}
		default:
			err = errors.New("neither a page of GET /markets (data) nor a market (condition_id)")
		}
	default:
		err = fmt.Errorf("a catalog value is a market, an array of markets or a page of GET /markets, not %.20s", raw)
	}
	return ms, err
}

// compactMarkets drops the entries a later listing replaced.
func compactMarkets(ms []Market) []Market {
	out := ms[:0]
	for _, m := range ms {
		if m.ConditionID != "" {
			out = append(out, m)
		}
	}
	return out
}

// compactSkipped drops the entries a later listing replaced.
func compactSkipped(ss []SkippedMarket) []SkippedMarket {
	out := ss[:0]
	for _, s := range ss {
		if s.ConditionID != "" {
			out = append(out, s)
		}
	}
	return out
}

// placeholderError is a listed market that names no usable token: a
// placeholder of the live listing. ReadCatalog skips it.
type placeholderError struct {
	cond, reason string
}

func (e *placeholderError) Error() string { return "market " + e.cond + ": " + e.reason }

// CatalogMarket takes a listed market's tokens and terms. The first token
// is the YES outcome unless the outcomes are named No, Yes (as the daemon
// assumes).
func CatalogMarket(m *exchange.Market) (Market, error) {
	if m.ConditionID == "" {
		return Market{}, errors.New("a market without condition_id")
	}
	out := Market{ConditionID: m.ConditionID, Question: m.Question, Slug: m.MarketSlug}
	toks := m.Tokens
	if len(toks) == 2 && strings.EqualFold(toks[0].Outcome, "no") && strings.EqualFold(toks[1].Outcome, "yes") {
		toks = []exchange.MarketToken{toks[1], toks[0]}
	}
	for _, t := range toks {
		if t.TokenID == "" {
			return Market{}, &placeholderError{cond: m.ConditionID, reason: placeholderReason(m)}
		}
		out.Tokens = append(out.Tokens, t.TokenID)
	}
	out.Terms = Terms{Tick: m.MinimumTickSize.Decimal, MinSize: m.MinimumOrderSize.Decimal,
		Rewards: strategy.RewardTerms{MaxSpread: m.Rewards.MaxSpread.Decimal, MinSize: m.Rewards.MinSize.Decimal,
			DailyRate: m.Rewards.DailyRate()}, NegRisk: m.NegRisk}
	if d := m.SecondsDelay.Decimal; !d.IsZero() {
		if !d.IsInteger() || d.IsNegative() || d.GreaterThan(decimal.NewFromInt(recording.MaxSecondsDelay)) {
			return Market{}, fmt.Errorf("market %s: seconds_delay %s is not a whole number of seconds in [0, %d]", m.ConditionID, d, recording.MaxSecondsDelay)
		}
		out.Terms.SecondsDelay = d.IntPart()
	}
	if m.EndDateISO != "" {
		t, ok := exchange.ParseDate(m.EndDateISO)
		if !ok {
			return Market{}, fmt.Errorf("market %s: end_date_iso %q is not a date", m.ConditionID, m.EndDateISO)
		}
		out.Terms.EndDate = t
	}
	return out, nil
}

// placeholderReason says why a market with a token without token_id is
// skipped.
func placeholderReason(m *exchange.Market) string {
	var what []string
	if !m.Active {
		what = append(what, "inactive")
	}
	if m.Closed {
		what = append(what, "closed")
	}
	if !m.AcceptingOrders {
		what = append(what, "not accepting orders")
	}
	if len(what) == 0 {
		return "a token without token_id"
	}
	return "a token without token_id (" + strings.Join(what, ", ") + ")"
}

// checkTerms refuses terms a recording cannot hold or the exchange would
// not have: a tick that is not one of the exchange's, a minimum size
// outside (0, exchange.MaxMinOrderSize], values with more than 6 decimals
// or negative.
func checkTerms(t Terms) error {
	if !t.Tick.IsZero() && !exchange.ValidTick(t.Tick) {
		return fmt.Errorf("tick size %s is not one of 0.1, 0.01, 0.001, 0.0001", t.Tick)
	}
	if !t.MinSize.IsZero() && (t.MinSize.IsNegative() || t.MinSize.GreaterThan(exchange.MaxMinOrderSize)) {
		return fmt.Errorf("minimum order size %s is not in (0, %s]", t.MinSize, exchange.MaxMinOrderSize)
	}
	for _, f := range []struct {
		name string
		d    decimal.Decimal
	}{{"minimum order size", t.MinSize}, {"reward max spread", t.Rewards.MaxSpread},
		{"reward min size", t.Rewards.MinSize}, {"reward daily rate", t.Rewards.DailyRate}} {
		v, err := exchange.FixedFromDecimal(f.d)
		if err != nil {
			return fmt.Errorf("%s %s: %w", f.name, f.d, err)
		}
		if v < 0 {
			return fmt.Errorf("%s %s is negative", f.name, f.d)
		}
	}
	if !t.EndDate.IsZero() && (t.EndDate.Year() < 2000 || t.EndDate.Year() > 2200) {
		return fmt.Errorf("end date %s is not plausible", t.EndDate.Format(time.RFC3339))
	}
	return nil
}

// SkippedSummary is one line for an import's summary naming the skipped
// markets of a catalog snapshot and their count ("" when none was
// skipped): "catalog: 2 markets skipped (no usable token id): 0xa… (a
// token without token_id (inactive)), 0xb… (…)".
func SkippedSummary(ss []SkippedMarket) string {
	if len(ss) == 0 {
		return ""
	}
	var b strings.Builder
	noun := "markets"
	if len(ss) == 1 {
		noun = "market"
	}
	fmt.Fprintf(&b, "catalog: %d %s skipped (no usable token id): ", len(ss), noun)
	for i, s := range ss {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%s)", s.ConditionID, s.Reason)
	}
	return b.String()
}
