package paper

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy/loop"
)

// Source is what the paper venue reads from the live exchange. It holds
// read methods only (and the limiter's budget): *exchange.Client satisfies
// it, and a paper venue has no way to reach the order endpoints.
type Source interface {
	Books(ctx context.Context, tokenIDs []string) ([]exchange.OrderBook, error)
	Trades(ctx context.Context, p exchange.TradesParams) ([]exchange.Trade, error)
	Budget(now time.Time) exchange.Budget
}

// Market is one market the paper venue trades.
type Market struct {
	ConditionID string
	// Tokens are the market's token ids by outcome index, the order in
	// which the data API's asset "<condition_id>:<index>" numbers them.
	Tokens  [2]string
	Tick    decimal.Decimal
	MinSize decimal.Decimal
	// Delay is the market's matching delay (the exchange's seconds_delay):
	// a virtual order reaches the book, and can fill, that long after it
	// is placed, and its placement answers "delayed", as on the exchange.
	Delay time.Duration
	// Rewards is the market's liquidity-reward program (zero: none): the
	// venue scores our virtual orders against the live books once a
	// minute and counts our pro-rata part of the pool (Stats.Reward).
	Rewards fillmodel.RewardTerms
}

// Config configures a Venue.
type Config struct {
	Markets []Market
	// Matcher is the fill model: mode, queue model, latency (Order and
	// Cancel; the data latency is the real one) and seed.
	Matcher fillmodel.MatcherConfig
	// TradeLimit is how many recent trades of its markets the venue reads
	// (GET /trades, taker fills) before each book read, to feed the fill
	// model; 0 means 500. Negative turns these reads off: then only trades
	// the loop itself reads through Trades reach the fill model.
	TradeLimit int
	// TradeInterval is the least time between two such reads (default
	// 100ms), so that the several POST /books batches of one cycle share
	// one read.
	TradeInterval time.Duration
	// HideOwnOrders returns the exchange's books as they are. By default
	// our resting virtual orders are added to the levels of the books the
	// venue returns, so that the loop sees its own quotes in the book as it
	// does live.
	HideOwnOrders bool
	// MaxBatch is the most orders one PlaceOrders call may carry (default
	// 15, the exchange's).
	MaxBatch int
	// KeepFinal is how long a filled or cancelled order stays readable
	// (default 10 minutes).
	KeepFinal time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Stats counts what a paper session did.
type Stats struct {
	Books, Trades    int // events fed to the fill model
	BadEvents        int // books or trades the fill model could not take (not exact in 6 decimals, unsorted)
	TradeReadErrors  int // failed GET /trades reads of the venue's own
	TradeGaps        int // trade reads that found no trade seen before: trades may have been missed
	Placed, Refused  int
	Cancels          int // cancels accepted
	Fills            int
	TakerFills       int
	FilledSize       exchange.Fixed
	FilledNotional   decimal.Decimal // Σ price × size, collateral
	Open             int             // orders live or in flight now
	OrdersRemembered int             // orders the venue can still answer reads for
	// Reward is the liquidity-reward score of our virtual orders against
	// the live books, summed over the samples of every paying market, and
	// Reward.Earned our part of their pools; RewardSamples counts the
	// samples (a market's sample each).
	Reward        fillmodel.RewardScore
	RewardSamples int
}

// Venue is the venue of `mmbot run --dry-run`: books and trades are
// read live from the exchange (through a Source), every book and new
// trade is fed to one Matcher per token (the backtest's fill model), and
// the loop's orders are virtual: PlaceOrders, CancelOrder and Order are
// answered from the Matchers and nothing is ever sent to the order
// endpoints. It implements loop.Venue and is safe for concurrent use.
//
// Order ids are "paper-" and a sequence number. Events reach the fill model
// when the loop reads (its cycle), at the time they were received.
type Venue struct {
	src Source
	cfg Config

	mu         sync.Mutex
	tokens     map[string]*paperToken
	byCond     map[string][2]string // lower-case condition id → tokens by outcome index
	conds      []string
	orders     map[string]*paperOrder
	finals     []*paperOrder // final orders in the order they became final
	cancelling []*paperOrder
	seq        int
	dedup      recording.TradeDedup
	lastPoll   time.Time
	stats      Stats
	scratch    recording.FixedBook
	resting    []fillmodel.OrderState
	rewardClk  fillmodel.RewardClock
	rewardBuf  [2][]fillmodel.OrderState
}

var _ loop.Venue = (*Venue)(nil)

// paperToken is one token's fill model and trading terms.
type paperToken struct {
	id, cond string
	outcome  int
	m        *fillmodel.Matcher
	delay    time.Duration  // the market's matching delay
	tick     exchange.Fixed // the market's: a change of either token's is both's (feedBook)
	said     exchange.Fixed // the tick the token's last book gave (the configured one before)
	minSize  exchange.Fixed
	rewards  fillmodel.RewardTerms
}

// NewVenue returns a paper venue over src for the configured markets.
func NewVenue(src Source, cfg Config) (*Venue, error) {
	if src == nil {
		return nil, errors.New("paper venue: no source")
	}
	if len(cfg.Markets) == 0 {
		return nil, errors.New("paper venue: no markets")
	}
	if err := cfg.Matcher.Validate(); err != nil {
		return nil, fmt.Errorf("paper venue: %w", err)
	}
	if cfg.TradeLimit == 0 {
		cfg.TradeLimit = 500
	}
	if cfg.TradeLimit > exchange.TradesMaxLimit {
		cfg.TradeLimit = exchange.TradesMaxLimit
	}
	if cfg.TradeInterval <= 0 {
		cfg.TradeInterval = 100 * time.Millisecond
	}
	if cfg.MaxBatch <= 0 {
		cfg.MaxBatch = 15
	}
	if cfg.KeepFinal <= 0 {
		cfg.KeepFinal = 10 * time.Minute
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	v := &Venue{src: src, cfg: cfg, tokens: map[string]*paperToken{}, byCond: map[string][2]string{},
		orders: map[string]*paperOrder{}}
	for _, pm := range cfg.Markets {
		cond := strings.ToLower(pm.ConditionID)
		if cond == "" || pm.Tokens[0] == "" || pm.Tokens[1] == "" || pm.Tokens[0] == pm.Tokens[1] {
			return nil, fmt.Errorf("paper venue: market %q needs a condition id and two distinct tokens", pm.ConditionID)
		}
		if _, dup := v.byCond[cond]; dup {
			return nil, fmt.Errorf("paper venue: market %s listed twice", pm.ConditionID)
		}
		tick, err := exchange.FixedFromDecimal(pm.Tick)
		if err != nil || tick <= 0 {
			return nil, fmt.Errorf("paper venue: market %s: tick %s", pm.ConditionID, pm.Tick)
		}
		minSize, err := exchange.FixedFromDecimal(pm.MinSize)
		if err != nil || minSize < 0 {
			return nil, fmt.Errorf("paper venue: market %s: minimum size %s", pm.ConditionID, pm.MinSize)
		}
		if pm.Delay < 0 {
			return nil, fmt.Errorf("paper venue: market %s: delay %s", pm.ConditionID, pm.Delay)
		}
		v.byCond[cond] = pm.Tokens
		v.conds = append(v.conds, pm.ConditionID)
		for o, tok := range pm.Tokens {
			if _, dup := v.tokens[tok]; dup {
				return nil, fmt.Errorf("paper venue: token %s in two markets", tok)
			}
			m, err := fillmodel.NewMatcher(tok, cfg.Matcher)
			if err != nil {
				return nil, fmt.Errorf("paper venue: %w", err)
			}
			v.tokens[tok] = &paperToken{id: tok, cond: pm.ConditionID, outcome: o, m: m, delay: pm.Delay, tick: tick, said: tick, minSize: minSize, rewards: pm.Rewards}
		}
	}
	v.dedup.Start = cfg.Now().Unix()
	return v, nil
}

// Books reads the books from the exchange and feeds them to the fill model
// (after the trades printed since the last read). The books come back best
// level first, with our resting virtual orders added unless HideOwnOrders.
func (v *Venue) Books(ctx context.Context, tokenIDs []string) ([]exchange.OrderBook, error) {
	v.pollTrades(ctx)
	books, err := v.src.Books(ctx, tokenIDs)
	if err != nil {
		return nil, err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	now := v.cfg.Now()
	for i := range books {
		b := &books[i]
		b.Normalize()
		pt := v.tokens[b.AssetID]
		if pt == nil {
			continue
		}
		v.feedBook(pt, b, now)
		if !v.cfg.HideOwnOrders {
			v.mergeOwn(pt, b)
		}
	}
	v.forgetFinals(now)
	v.sampleRewards(now)
	return books, nil
}

// Trades reads the tape from the exchange; taker trades not yet fed to the
// fill model are fed now.
func (v *Venue) Trades(ctx context.Context, p exchange.TradesParams) ([]exchange.Trade, error) {
	trades, err := v.src.Trades(ctx, p)
	if err != nil {
		return nil, err
	}
	if p.TakerOnly == nil || *p.TakerOnly { // maker records carry the maker's side
		v.mu.Lock()
		v.feedTrades(trades, 0, v.cfg.Now())
		v.mu.Unlock()
	}
	return trades, nil
}

// Budget is the client's: a paper session waits on nothing of its own.
func (v *Venue) Budget(now time.Time) exchange.Budget { return v.src.Budget(now) }

// Stats returns the session's counts.
func (v *Venue) Stats() Stats {
	v.mu.Lock()
	defer v.mu.Unlock()
	s := v.stats
	for _, pt := range v.tokens {
		s.Open += pt.m.Open()
	}
	s.OrdersRemembered = len(v.orders)
	return s
}

// Config returns the configuration (with defaults filled in).
func (v *Venue) Config() Config { return v.cfg }

// pollTrades reads the recent trades of the venue's markets, at most once
// per TradeInterval. Failures are counted, not returned: the books are what
// the loop asked for.
func (v *Venue) pollTrades(ctx context.Context) {
	if v.cfg.TradeLimit < 0 {
		return
	}
	v.mu.Lock()
	now := v.cfg.Now()
	due := v.lastPoll.IsZero() || now.Sub(v.lastPoll) >= v.cfg.TradeInterval
	if due {
		v.lastPoll = now
	}
	v.mu.Unlock()
	if !due {
		return
	}
	limit, taker := v.cfg.TradeLimit, true
	for start := 0; start < len(v.conds); start += recording.MarketsPerTradesRequest {
		chunk := v.conds[start:min(start+recording.MarketsPerTradesRequest, len(v.conds))]
		trades, err := v.src.Trades(ctx, exchange.TradesParams{Market: chunk, Limit: &limit, TakerOnly: &taker})
		v.mu.Lock()
		if err != nil {
			v.stats.TradeReadErrors++
		} else {
			v.feedTrades(trades, limit, v.cfg.Now())
		}
		v.mu.Unlock()
	}
}

// feedTrades feeds the trades not seen before to their tokens' Matchers;
// v.mu is held.
func (v *Venue) feedTrades(trades []exchange.Trade, limit int, now time.Time) {
	fresh, gap := v.dedup.Fresh(trades, limit)
	if gap {
		v.stats.TradeGaps++
	}
	for i := range fresh {
		t := &fresh[i]
		tok, ok := recording.TradeToken(t, v.byCond)
		if !ok {
			continue
		}
		pt := v.tokens[tok]
		if pt == nil {
			continue
		}
		mt, err := fillmodel.MatchTradeFrom(&recording.Trade{TokenID: tok, Price: t.Price.Decimal, Size: t.Size.Decimal, TakerSide: t.Side})
		if err != nil || mt.Price <= 0 || mt.Size <= 0 {
			v.stats.BadEvents++
			continue
		}
		if !mt.TakerSide.Valid() {
			mt.TakerSide = ""
		}
		v.stats.Trades++
		v.applyFills(pt.m.OnTrade(mt, now), now)
		if mt.Price < exchange.FixedScale {
			// The print went through the other token's orders too, at the
			// complementary price (fillmodel.MatchTrade.Mirror).
			for _, other := range v.byCond[strings.ToLower(pt.cond)] {
				if ot := v.tokens[other]; ot != nil && ot != pt {
					v.applyFills(ot.m.OnTrade(mt.Mirror(), now), now)
				}
			}
		}
	}
}

// feedBook feeds one normalised book to its token's Matcher; v.mu is held.
func (v *Venue) feedBook(pt *paperToken, b *exchange.OrderBook, now time.Time) {
	if t, err := exchange.FixedFromDecimal(b.TickSize); err == nil && t > 0 && t != pt.said {
		// A market has one tick and the exchange changes it per token: a
		// token's book giving a new tick changes the market's, while the
		// other's, still giving the old one, changes nothing.
		pt.said = t
		for _, tok := range v.byCond[strings.ToLower(pt.cond)] {
			v.tokens[tok].tick = t
		}
	}
	if s, err := exchange.FixedFromDecimal(b.MinOrderSize); err == nil && s > 0 {
		pt.minSize = s
	}
	bk := recording.Book{TokenID: b.AssetID, Bids: nonEmpty(b.Bids), Asks: nonEmpty(b.Asks)}
	if err := v.scratch.SetFrom(&bk); err != nil {
		v.stats.BadEvents++
		return
	}
	v.stats.Books++
	v.applyFills(pt.m.OnBook(&v.scratch, now), now)
}

// nonEmpty returns levels without zero-size ones (a copy only when needed).
func nonEmpty(levels []exchange.PriceLevel) []exchange.PriceLevel {
	for i := range levels {
		if !levels[i].Size.IsPositive() {
			out := append([]exchange.PriceLevel(nil), levels[:i]...)
			for _, l := range levels[i+1:] {
				if l.Size.IsPositive() {
					out = append(out, l)
				}
			}
			return out
		}
	}
	return levels
}
