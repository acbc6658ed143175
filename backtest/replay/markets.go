package replay

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/strategy"
)

// MarketScan is what one pass over a recording found: the markets a replay
// can quote, and notes on what it had to leave out.
type MarketScan struct {
	Markets []strategy.Market // by condition id
	Notes   []string
	// Books counts the book events of each token of Markets. A market with
	// no book of one outcome is kept, with a note: the strategy needs both
	// outcomes' books to quote it (see HalfMarkets).
	Books      map[string]int64
	Events     int64
	Start, End time.Time
}

// scanToken is what the scan knows of a token: its book events, and the
// market the first event naming one placed it in (nil: none yet).
type scanToken struct {
	books int64
	m     *scanMarket
}

type scanMarket struct {
	id             string
	tokens         []string // in order of first appearance
	tick           decimal.Decimal
	minSize        decimal.Decimal
	end            time.Time
	rewards        strategy.RewardTerms
	delay          time.Duration
	negRisk        bool
	question, slug string
}

// ScanMarkets reads src to the end and groups its tokens into markets:
//
//   - a token belongs to the market (condition id) named by the first event
//     of the token that names one;
//   - a market's first token to appear is its YES outcome (index 0), the
//     second its NO outcome (index 1): the recorder writes a market's books
//     in the exchange's token order;
//   - the tick size, minimum size, end date, matching delay, question and
//     slug are the first ones seen (books and meta events, market-wide
//     meta included), so nothing is taken from the future of the run;
//   - only markets with exactly two tokens and a known tick size are kept;
//     the others, and tokens no event places in a market, are listed in
//     Notes.
func ScanMarkets(src Source) (*MarketScan, error) {
	res := &MarketScan{Books: map[string]int64{}}
	markets := map[string]*scanMarket{}
	toks := map[string]*scanToken{}
	var orphans []string
	orphan := map[string]bool{}
	get := func(id string) *scanMarket {
		m := markets[id]
		if m == nil {
			m = &scanMarket{id: id}
			markets[id] = m
		}
		return m
	}
	// tok is the token's entry; the last one is kept at hand, as a
	// token's events come in runs.
	var lastID string
	var last *scanToken
	tok := func(id string) *scanToken {
		if last != nil && id == lastID {
			return last
		}
		t := toks[id]
		if t == nil {
			t = &scanToken{}
			toks[id] = t
		}
		lastID, last = id, t
		return t
	}
	place := func(token, market string) *scanMarket {
		if token == "" {
			if market == "" {
				return nil
			}
			return get(market)
		}
		t := tok(token)
		if t.m != nil {
			return t.m
		}
		if market == "" {
			if !orphan[token] {
				orphan[token] = true
				orphans = append(orphans, token)
			}
			return nil
		}
		delete(orphan, token)
		t.m = get(market)
		t.m.tokens = append(t.m.tokens, token)
		return t.m
	}
	books := func(token string) int64 {
		if t := toks[token]; t != nil {
			return t.books
		}
		return 0
	}
	for {
		e, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("scanning for markets: %w", err)
		}
		t := e.Time()
		if res.Events == 0 {
			res.Start = t
		}
		res.End = t
		res.Events++
		switch e.Kind {
		case recording.KindBook:
			if e.Book.TokenID != "" {
				tok(e.Book.TokenID).books++
			}
			if m := place(e.Book.TokenID, e.Book.Market); m != nil {
				m.learn(e.Book.TickSize, e.Book.MinOrderSize, time.Time{})
			}
		case recording.KindTrade:
			place(e.Trade.TokenID, e.Trade.Market)
		case recording.KindMeta:
			if m := place(e.Meta.TokenID, e.Meta.Market); m != nil {
				m.learn(e.Meta.TickSize, e.Meta.MinOrderSize, e.Meta.EndDate)
				m.learnRewards(e.Meta)
				m.learnMarket(e.Meta)
			}
		}
	}
	ids := make([]string, 0, len(markets))
	for id := range markets {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		m := markets[id]
		switch {
		case len(m.tokens) != 2:
			res.Notes = append(res.Notes, fmt.Sprintf("market %s has %d tokens in the recording; only binary markets are replayed", id, len(m.tokens)))
		case !m.tick.IsPositive():
			res.Notes = append(res.Notes, fmt.Sprintf("market %s: no tick size in the recording", id))
		default:
			res.Markets = append(res.Markets, strategy.Market{ConditionID: id, TokenIDs: [2]string{m.tokens[0], m.tokens[1]},
				Tick: m.tick, MinSize: m.minSize, EndDate: m.end, Rewards: m.rewards,
				PlacementDelay: m.delay, NegRisk: m.negRisk, Question: m.question, Slug: m.slug})
			y, n := books(m.tokens[0]), books(m.tokens[1])
			res.Books[m.tokens[0]], res.Books[m.tokens[1]] = y, n
			if y == 0 || n == 0 {
				res.Notes = append(res.Notes, fmt.Sprintf("market %s has %d books of its YES token and %d of its NO token: "+
					"the strategy quotes a market only with both outcomes' books, so it will not quote this one", id, y, n))
			}
		}
	}
	for _, tok := range orphans {
		if orphan[tok] {
			res.Notes = append(res.Notes, fmt.Sprintf("token %s: no event names its market; not replayed", tok))
		}
	}
	return res, nil
}

// HalfMarkets returns the markets of ms that have no book of one outcome
// in the recording (which the strategy cannot quote).
func (s *MarketScan) HalfMarkets(ms []strategy.Market) []strategy.Market {
	var out []strategy.Market
	for _, m := range ms {
		if s.Books[m.TokenIDs[strategy.Yes]] == 0 || s.Books[m.TokenIDs[strategy.No]] == 0 {
			out = append(out, m)
		}
	}
	return out
}

func (m *scanMarket) learn(tick, minSize decimal.Decimal, end time.Time) {
	if !m.tick.IsPositive() && tick.IsPositive() {
		m.tick = tick
	}
	if !m.minSize.IsPositive() && minSize.IsPositive() {
		m.minSize = minSize
	}
	if m.end.IsZero() && !end.IsZero() {
		m.end = end
	}
}

// learnMarket takes the first matching delay, question and slug seen, and
// the neg-risk flag.
func (m *scanMarket) learnMarket(e *recording.Meta) {
	if m.delay == 0 && e.SecondsDelay > 0 {
		m.delay = time.Duration(e.SecondsDelay) * time.Second
	}
	m.negRisk = m.negRisk || e.NegRisk
	if m.question == "" {
		m.question = e.Question
	}
	if m.slug == "" {
		m.slug = e.Slug
	}
}

// learnRewards takes the first reward terms seen, field by field.
func (m *scanMarket) learnRewards(e *recording.Meta) {
	r := &m.rewards
	if !r.MaxSpread.IsPositive() && e.RewardMaxSpread.IsPositive() {
		r.MaxSpread = e.RewardMaxSpread
	}
	if !r.MinSize.IsPositive() && e.RewardMinSize.IsPositive() {
		r.MinSize = e.RewardMinSize
	}
	if !r.DailyRate.IsPositive() && e.RewardDailyRate.IsPositive() {
		r.DailyRate = e.RewardDailyRate
	}
}

// Pick returns the markets of the scan that ids name (condition ids, any
// case; every market the scan kept when ids is empty). When no market can
// be replayed, or an id names a market the scan left out, the error says
// why for every market left out (Notes), not only that none is usable.
func (s *MarketScan) Pick(ids []string) ([]strategy.Market, error) {
	if len(s.Markets) == 0 {
		if len(s.Notes) == 0 {
			return nil, errors.New("the recording holds no market (see docs/data-format.md)")
		}
		return nil, fmt.Errorf("the recording holds no market a backtest can use (see docs/data-format.md):\n  %s", strings.Join(s.Notes, "\n  "))
	}
	if len(ids) == 0 {
		return s.Markets, nil
	}
	var out []strategy.Market
	for _, want := range ids {
		found := false
		for _, m := range s.Markets {
			if strings.EqualFold(m.ConditionID, want) {
				out = append(out, m)
				found = true
				break
			}
		}
		if found {
			continue
		}
		for _, n := range s.Notes {
			if strings.Contains(strings.ToLower(n), "market "+strings.ToLower(want)+" ") || strings.Contains(strings.ToLower(n), "market "+strings.ToLower(want)+":") {
				return nil, fmt.Errorf("markets.condition_ids: %s cannot be replayed: %s", want, n)
			}
		}
		return nil, fmt.Errorf("markets.condition_ids: %s is not in the recording", want)
	}
	return out, nil
}
