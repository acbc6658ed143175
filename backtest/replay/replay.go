package replay

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy"
)

// Source is a stream of recorded events in non-decreasing time order, ending
// with io.EOF. *Reader is one; SliceSource replays events held in memory.
type Source interface {
	Next() (recording.Event, error)
}

// SliceSource is a Source over events in memory.
type SliceSource struct {
	Events []recording.Event
	i      int
}

// Next implements Source.
func (s *SliceSource) Next() (recording.Event, error) {
	if s.i >= len(s.Events) {
		return recording.Event{}, io.EOF
	}
	e := s.Events[s.i]
	s.i++
	return e, nil
}

// ErrEndOfRecording is what the replay clock's Sleep returns once every
// event has been replayed; it wraps io.EOF, so the loop's Run returns.
var ErrEndOfRecording = fmt.Errorf("backtest: end of recording: %w", io.EOF)

// ErrEmptyRecording means the source held no event.
var ErrEmptyRecording = errors.New("backtest: the recording holds no event")

// Defaults of Config.
const (
	DefaultTapeSize      = 64              // trades kept per market for the data API tape (the loop keeps 64)
	DefaultProgressEvery = 1 << 16         // events between progress callbacks
	finalOrdersKept      = 4096            // at most this many final orders are still answered by Order
	finalOrdersFor       = 2 * time.Minute // for at least this long after they became final
)

// Config configures a Replay.
type Config struct {
	// Markets are the markets the venue knows (ScanMarkets finds them in a
	// recording). Events of other tokens are skipped.
	Markets []strategy.Market
	// Matcher is the fill model of every token: mode, queue model, seed and
	// the order and cancel latency. Matcher.Latency.Data is the data
	// latency, applied by the Replay to what Books and Trades return.
	Matcher fillmodel.MatcherConfig
	// Limits are the client's rate caps whose POST /order and DELETE /order
	// buckets the replay simulates (nil: exchange.DefaultLimits()).
	Limits *exchange.Limits
	// HideOwnOrders returns the recorded books as they are. By default our
	// resting virtual orders are added to the levels Books returns, so that
	// the loop sees its own quotes in the book as it does live (the
	// recorded market never saw them; the fill model never counts them).
	HideOwnOrders bool
	// TapeSize is how many recent trades per market Trades can return
	// (0: DefaultTapeSize).
	TapeSize int
	// OnProgress, when set, is called every ProgressEvery events (0:
	// DefaultProgressEvery) with the number of events replayed so far.
	OnProgress    func(events int64)
	ProgressEvery int64
}

// Replay is the backtest's venue and clock in one: it implements
// loop.Venue and loop.Clock over a recording. Time is simulated.
// Every recorded event reaches the fill model (one Matcher per token) and
// the Accumulator at its recorded time; the strategy sees books, trades and
// metadata only after the data latency. A call that changes orders returns
// once its effect has happened at the exchange: PlaceOrders advances time
// until its orders rest (the order latency), CancelOrder until the cancel
// has taken effect (the cancel latency); reads take no simulated time.
// docs/backtesting.md describes the model.
//
// A Replay is not safe for concurrent use; the loop calls it from one
// goroutine.
type Replay struct {
	cfg Config
	src Source
	acc *accounting.Accumulator

	now     time.Time
	start   time.Time
	last    time.Time       // time of the last event consumed
	next    recording.Event // the event read ahead
	hasNext bool
	eof     bool
	done    bool
	err     error
	events  int64

	markets []*replayMarket
	byCond  map[string]*replayMarket
	tokens  map[string]*replayToken
	list    []*replayToken // by token id
	scratch recording.FixedBook
	nextDue time.Time // earliest pending Matcher transition; zero: none

	vis     visQueue  // events not yet visible to the strategy
	cutoff  time.Time // the strategy sees every event at or before cutoff
	dataMax time.Duration
	drng    *rand.Rand

	orders    map[string]*vorder
	finals    []finalOrder // final orders still answered by Order, oldest first
	finalHead int

	levels recording.LevelConverter // the strategy's books, from Fixed levels

	buckets    rateBuckets
	nextReward time.Time
	rewardBuf  [2][]fillmodel.OrderState
	restBuf    []fillmodel.OrderState
	ownBuf     []ownLevel
	tapeSel    []*replayMarket // Trades' markets, reused
	tapeVer    uint64          // counts the trades shown to the strategy
	tapeMemo   tapeMemo        // Trades' last merge
}

// finalOrder is an order that became final at a time.
type finalOrder struct {
	id string
	at time.Time
}

// replayMarket is one quoted market: its terms, its two tokens and the tape
// of recorded trades the strategy has seen.
type replayMarket struct {
	m      strategy.Market
	delay  time.Duration         // the matching delay of placements (seconds_delay); metas change it
	terms  fillmodel.RewardTerms // the market's reward program (zero: none)
	toks   [2]*replayToken
	tape   []*tapeTrade // ring
	head   int
	n      int
	pushed uint64 // trades pushed on the tape so far
	// unsorted is set once a trade came in with a time before its
	// predecessor's on the tape: Trades then sorts instead of merging.
	unsorted bool
}

// tapeTrade is one recorded trade in the data API's shape.
type tapeTrade struct {
	at  time.Time
	seq uint64 // its market's pushed count when it was pushed
	tr  exchange.Trade
}

func newTapeTrade(tok *replayToken, t *recording.Trade) *tapeTrade {
	ts := t.Exchange
	if ts.IsZero() {
		ts = t.Received
	}
	return &tapeTrade{at: t.Time(), tr: exchange.Trade{Side: t.TakerSide, Asset: tok.asset, ConditionID: tok.mk.m.ConditionID,
		Size: exchange.NewNumber(t.Size), Price: exchange.NewNumber(t.Price), Timestamp: ts.Unix(),
		UsdcSize: exchange.NewNumber(t.Size.Mul(t.Price)), OutcomeIndex: int(tok.outcome)}}
}

// replayToken is one outcome token: its fill model, its metrics, the truth
// the exchange enforces and what the strategy has seen.
type replayToken struct {
	id      string
	mk      *replayMarket
	outcome strategy.Outcome
	asset   string // "<condition_id>:<outcome_index>"
	m       *fillmodel.Matcher
	acc     *accounting.TokenAcc

	tick     exchange.Fixed // the exchange's tick, the market's (0: unknown)
	said     exchange.Fixed // the tick the token's last book or meta gave (takeTick)
	minSize  exchange.Fixed
	resolved bool
	tickDec  decimal.Decimal // the last book's terms, as given
	minDec   decimal.Decimal

	// The latest book the strategy has seen: a copy of its Fixed levels
	// (visFx) when it came with them, which Books converts, so that the
	// decoder's levels are not kept; else the book itself (visDec).
	hasVis      bool
	visFx       recording.FixedBook
	visDec      *recording.Book
	visTick     decimal.Decimal
	visMin      decimal.Decimal
	visResolved bool
	visVer      uint64   // counts the books shown
	memo        bookMemo // Books' last levels

	live []*vorder // our orders not yet final
}

// New reads the first event of src and returns a Replay whose clock
// starts at that event's time. Metrics go to acc.
func New(src Source, cfg Config, acc *accounting.Accumulator) (*Replay, error) {
	if src == nil || acc == nil {
		return nil, errors.New("backtest: NewReplay needs a source and an accumulator")
	}
	if err := cfg.Matcher.Validate(); err != nil {
		return nil, fmt.Errorf("backtest: matcher: %w", err)
	}
	if cfg.TapeSize <= 0 {
		cfg.TapeSize = DefaultTapeSize
	}
	if cfg.ProgressEvery <= 0 {
		cfg.ProgressEvery = DefaultProgressEvery
	}
	limits := exchange.DefaultLimits()
	if cfg.Limits != nil {
		limits = *cfg.Limits
	}
	r := &Replay{cfg: cfg, src: src, acc: acc, byCond: map[string]*replayMarket{}, tokens: map[string]*replayToken{},
		orders: map[string]*vorder{}, dataMax: maxDelay(cfg.Matcher.Latency.Data)}
	h := fnv.New64a()
	_, _ = h.Write([]byte("data latency"))
	r.drng = rand.New(rand.NewPCG(cfg.Matcher.Seed, h.Sum64()))
	for i := range cfg.Markets {
		if err := r.addMarket(cfg.Markets[i]); err != nil {
			return nil, err
		}
	}
	sort.Slice(r.list, func(i, j int) bool { return r.list[i].id < r.list[j].id })
	if !r.peek() {
		if r.err != nil {
			return nil, r.err
		}
		return nil, ErrEmptyRecording
	}
	r.start = r.next.Time()
	r.now, r.cutoff = r.start, r.start.Add(-r.dataMax)
	if err := r.buckets.init(limits, r.start); err != nil {
		return nil, err
	}
	r.nextReward = r.start.Truncate(time.Minute).Add(time.Minute)
	r.advanceTo(r.start)
	return r, r.err
}

func (r *Replay) addMarket(m strategy.Market) error {
	if m.ConditionID == "" || m.TokenIDs[strategy.Yes] == "" || m.TokenIDs[strategy.No] == "" || m.TokenIDs[0] == m.TokenIDs[1] {
		return fmt.Errorf("backtest: market %q needs a condition id and two distinct token ids", m.ConditionID)
	}
	if _, dup := r.byCond[m.ConditionID]; dup {
		return fmt.Errorf("backtest: market %s listed twice", m.ConditionID)
	}
	terms, err := fillmodel.NewRewardTerms(m.Rewards.MaxSpread, m.Rewards.MinSize, m.Rewards.DailyRate)
	if err != nil {
		return fmt.Errorf("backtest: market %s: %w", m.ConditionID, err)
	}
	mk := &replayMarket{m: m, delay: m.PlacementDelay, terms: terms, tape: make([]*tapeTrade, r.cfg.TapeSize)}
	r.byCond[m.ConditionID] = mk
	r.markets = append(r.markets, mk)
	tick, _ := exchange.FixedFromDecimal(m.Tick)
	minSize, _ := exchange.FixedFromDecimal(m.MinSize)
	for o, id := range m.TokenIDs {
		if _, dup := r.tokens[id]; dup {
			return fmt.Errorf("backtest: token %s appears in two markets", id)
		}
		mt, err := fillmodel.NewMatcher(id, r.cfg.Matcher)
		if err != nil {
			return err
		}
		tok := &replayToken{id: id, mk: mk, outcome: strategy.Outcome(o), asset: fmt.Sprintf("%s:%d", m.ConditionID, o),
			m: mt, acc: r.acc.Token(id), tick: tick, said: tick, minSize: minSize}
		mk.toks[o] = tok
		r.tokens[id] = tok
		r.list = append(r.list, tok)
	}
	return nil
}

// maxDelay bounds the draws of d.
func maxDelay(d fillmodel.Dist) time.Duration {
	switch d.Kind {
	case fillmodel.DistConstant:
		return max(d.A, 0)
	case fillmodel.DistUniform:
		return max(d.B, 0)
	}
	return fillmodel.MaxLatency
}

// Now implements loop.Clock: the simulated time.
func (r *Replay) Now() time.Time { return r.now }

// Sleep implements loop.Clock: it advances simulated time by d,
// replaying every event up to the new time. Once the recording is
// exhausted it returns ErrEndOfRecording (which wraps io.EOF); a broken
// recording returns its error.
func (r *Replay) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if r.err != nil {
		return r.err
	}
	if r.done {
		return ErrEndOfRecording
	}
	if d > 0 {
		r.advanceTo(r.now.Add(d))
	}
	if r.err != nil {
		return r.err
	}
	if r.eof {
		r.done = true
		return ErrEndOfRecording
	}
	return nil
}

// Err returns the error that stopped the replay (a broken recording), or
// nil after a clean end.
func (r *Replay) Err() error { return r.err }

// Done reports whether every event has been replayed.
func (r *Replay) Done() bool { return r.done || r.eof }

// Start is the time of the first event; End the time of the last one
// replayed so far.
func (r *Replay) Start() time.Time { return r.start }

// End is the time of the last event replayed so far.
func (r *Replay) End() time.Time { return r.last }

// Events returns the number of events replayed so far.
func (r *Replay) Events() int64 { return r.events }

// Markets returns the markets the venue knows, in the order configured.
func (r *Replay) Markets() []strategy.Market {
	out := make([]strategy.Market, len(r.markets))
	for i, mk := range r.markets {
		out[i] = mk.m
	}
	return out
}
