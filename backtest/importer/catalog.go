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

// LoadCatalog reads a catalog snapshot: the order-book API's market objects
// as GET /markets returns them (docs/data-format.md). The input is a
// sequence of JSON values, each one of
//
//   - a page of GET /markets, {"data": [market, …], "next_cursor": …};
//   - an array of market objects (mmbot markets --json);
//   - one market object (GET /markets/{condition_id}).
//
// so the pages of a listing saved one after the other are a snapshot too.
// A market listed twice keeps its last listing. Gzip input is
// decompressed. The markets' terms are checked when an import uses them.
func LoadCatalog(r io.Reader) ([]Market, error) {
	br, closeGz, err := gunzip(r)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	defer closeGz()
	dec := json.NewDecoder(br)
	var out []Market
	index := map[string]int{}
	add := func(m *exchange.Market) error {
		cm, err := CatalogMarket(m)
		if err != nil {
			return err
		}
		key := strings.ToLower(cm.ConditionID)
		if i, ok := index[key]; ok {
			out[i] = cm
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
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("catalog: value %d: %w", n, err)
		}
		raw = bytes.TrimSpace(raw)
		var ms []exchange.Market
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
			return Market{}, fmt.Errorf("market %s: a token without token_id", m.ConditionID)
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
