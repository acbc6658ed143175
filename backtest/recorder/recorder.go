package recorder

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy"
)

// Source is what the recorder reads: POST /books and the data API's
// GET /trades. *exchange.Client satisfies it (and keeps under the rate
// limits by itself).
type Source interface {
	Books(ctx context.Context, tokenIDs []string) ([]exchange.OrderBook, error)
	Trades(ctx context.Context, p exchange.TradesParams) ([]exchange.Trade, error)
}

// Market is one market to record: its terms go into the Meta events
// written at the start.
type Market struct {
	ConditionID string
	// Tokens by outcome index (the data API's "<condition_id>:<index>").
	Tokens  [2]string
	Tick    decimal.Decimal
	MinSize decimal.Decimal
	EndDate time.Time // zero when unknown
	// Rewards are the liquidity-reward terms (zero: none known).
	Rewards strategy.RewardTerms
	// Delay is the market's matching delay (seconds_delay, whole seconds)
	// and NegRisk its neg-risk flag; Question and Slug name it for people.
	Delay          time.Duration
	NegRisk        bool
	Question, Slug string
}

// Clock is the recorder's time source: exchange.SystemClock, or a fake in
// tests.
type Clock interface {
	Now() time.Time
	Sleep(ctx context.Context, d time.Duration) error
}

// Config configures a Recorder.
type Config struct {
	Markets []Market
	// Interval is the time between the starts of two polls (default 1s).
	Interval time.Duration
	// BooksBatch is the most tokens per POST /books (default 50).
	BooksBatch int
	// TradeLimit is how many recent trades one GET /trades asks for
	// (default 500); negative records no trades.
	TradeLimit int
	// Clock is the time source (default the wall clock).
	Clock Clock
	// Log receives warnings (failed polls, dropped markets).
	Log zerolog.Logger
}

// Stats counts what a Recorder has written.
type Stats struct {
	Start     time.Time
	Polls     int
	Events    int // written: Books + Trades + Metas
	Books     int
	Unchanged int // books read but not written because they had not changed
	Trades    int
	Metas     int
	Skipped   int // events not valid in the recording format (more than 6 decimals, unsorted levels)
	Errors    int // failed reads
	Gaps      int // trade reads whose every trade was new: some may have been missed between two polls
	Dropped   int // markets no longer recorded (their book is gone)
}

// Recorder polls the books and trades of a set of markets and writes the
// changes to an EventSink: first one Meta per token (tick, minimum size, end
// date, reward terms), then, each poll, the trades printed since the previous poll
// (deduplicated; trades before the start are not recorded) and the books
// that changed. Every event carries the exchange's timestamp and the local
// receive time, which orders the recording; for one token, events of one
// receive time are meta, trade, book (recording.SameTimeRank), an event
// that would break that being stamped a nanosecond later.
type Recorder struct {
	src  Source
	sink recording.EventSink
	cfg  Config

	byCond  map[string][2]string
	conds   []string
	tokens  []string
	market  map[string]string // token → condition id
	dropped map[string]bool   // condition ids no longer polled
	filter  recording.BookFilter
	ticks   map[string]decimal.Decimal
	dedup   recording.TradeDedup
	last    time.Time
	order   sameTime

	mu    sync.Mutex
	stats Stats
}

// New checks cfg and returns a Recorder writing to sink.
func New(src Source, sink recording.EventSink, cfg Config) (*Recorder, error) {
	if src == nil || sink == nil {
		return nil, errors.New("recorder: needs a source and a sink")
	}
	if len(cfg.Markets) == 0 {
		return nil, errors.New("recorder: no markets")
	}
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	if cfg.BooksBatch <= 0 {
		cfg.BooksBatch = 50
	}
	if cfg.TradeLimit == 0 {
		cfg.TradeLimit = 500
	}
	if cfg.TradeLimit > exchange.TradesMaxLimit {
		cfg.TradeLimit = exchange.TradesMaxLimit
	}
	if cfg.Clock == nil {
		cfg.Clock = exchange.SystemClock{}
	}
	r := &Recorder{src: src, sink: sink, cfg: cfg, byCond: map[string][2]string{}, market: map[string]string{},
		dropped: map[string]bool{}, ticks: map[string]decimal.Decimal{}}
	for _, m := range cfg.Markets {
		cond := strings.ToLower(m.ConditionID)
		if cond == "" || m.Tokens[0] == "" || m.Tokens[1] == "" || m.Tokens[0] == m.Tokens[1] {
			return nil, fmt.Errorf("recorder: market %q needs a condition id and two distinct tokens", m.ConditionID)
		}
		if _, dup := r.byCond[cond]; dup {
			return nil, fmt.Errorf("recorder: market %s listed twice", m.ConditionID)
		}
		r.byCond[cond] = m.Tokens
		r.conds = append(r.conds, m.ConditionID)
		for _, tok := range m.Tokens {
			if _, dup := r.market[tok]; dup {
				return nil, fmt.Errorf("recorder: token %s in two markets", tok)
			}
			r.market[tok] = m.ConditionID
			r.tokens = append(r.tokens, tok)
		}
	}
	return r, nil
}

// Stats returns the counts so far; it may be called while Run runs.
func (r *Recorder) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stats
}

// Run writes the markets' Meta events, then polls every Interval until ctx
// ends, and returns nil then. It returns an error only when the sink fails
// (the recording cannot be completed); failed reads are logged, counted and
// retried at the next poll.
func (r *Recorder) Run(ctx context.Context) error {
	start := r.stamp()
	r.mu.Lock()
	r.stats.Start = start
	r.mu.Unlock()
	r.dedup.Start = start.Unix()
	for _, m := range r.cfg.Markets {
		for _, tok := range m.Tokens {
			r.ticks[tok] = m.Tick
			meta := &recording.Meta{Stamp: recording.Stamp{Received: start}, TokenID: tok, Market: m.ConditionID, TickSize: m.Tick,
				MinOrderSize: m.MinSize, EndDate: m.EndDate, RewardMaxSpread: m.Rewards.MaxSpread,
				RewardMinSize: m.Rewards.MinSize, RewardDailyRate: m.Rewards.DailyRate,
				SecondsDelay: int64(m.Delay / time.Second), NegRisk: m.NegRisk, Question: m.Question, Slug: m.Slug}
			if err := r.write(recording.MetaEvent(meta)); err != nil {
				return err
			}
		}
	}
	for {
		begin := r.cfg.Clock.Now()
		if err := r.Poll(ctx); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
		if err := r.cfg.Clock.Sleep(ctx, r.cfg.Interval-r.cfg.Clock.Now().Sub(begin)); err != nil {
			return nil
		}
	}
}

// Poll reads the trades, then the books, once and writes what is new. Run
// calls it; tests call it directly.
func (r *Recorder) Poll(ctx context.Context) error {
	if r.cfg.TradeLimit > 0 {
		if err := r.pollTrades(ctx); err != nil {
			return err
		}
	}
	if err := r.pollBooks(ctx); err != nil {
		return err
	}
	r.mu.Lock()
	r.stats.Polls++
	r.mu.Unlock()
	return nil
}

func (r *Recorder) pollTrades(ctx context.Context) error {
	limit, taker := r.cfg.TradeLimit, true
	var conds []string
	for _, c := range r.conds {
		if !r.dropped[c] {
			conds = append(conds, c)
		}
	}
	for start := 0; start < len(conds); start += recording.MarketsPerTradesRequest {
		chunk := conds[start:min(start+recording.MarketsPerTradesRequest, len(conds))]
		trades, err := r.src.Trades(ctx, exchange.TradesParams{Market: chunk, Limit: &limit, TakerOnly: &taker})
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			r.failed("reading trades failed", err)
			continue
		}
		received := r.stamp()
		fresh, gap := r.dedup.Fresh(trades, limit)
		if gap {
			r.count(func(s *Stats) { s.Gaps++ })
			r.cfg.Log.Warn().Int("limit", limit).Msg("every trade read was new: some trades may be missing (shorten --interval)")
		}
		for i := range fresh {
			t := &fresh[i]
			tok, ok := recording.TradeToken(t, r.byCond)
			if !ok {
				continue
			}
			side := t.Side
			if !side.Valid() {
				side = ""
			}
			tr := &recording.Trade{Stamp: recording.Stamp{Exchange: time.Unix(t.Timestamp, 0), Received: received}, TokenID: tok, Market: r.market[tok],
				Price: t.Price.Decimal, Size: t.Size.Decimal, TakerSide: side}
			if err := r.write(recording.TradeEvent(tr)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *Recorder) pollBooks(ctx context.Context) error {
	var toks []string
	for _, tok := range r.tokens {
		if !r.dropped[r.market[tok]] {
			toks = append(toks, tok)
		}
	}
	for start := 0; start < len(toks); start += r.cfg.BooksBatch {
		chunk := toks[start:min(start+r.cfg.BooksBatch, len(toks))]
		books, err := r.src.Books(ctx, chunk)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			if errors.Is(err, exchange.ErrNotFound) || errors.Is(err, exchange.ErrBadRequest) {
				if err := r.isolate(ctx, chunk); err != nil {
					return err
				}
				continue
			}
			r.failed("reading books failed", err)
			continue
		}
		if err := r.takeBooks(books); err != nil {
			return err
		}
	}
	return nil
}

// isolate reads a failed batch market by market, so that one closed market
// does not stop the others; a market whose book is gone is dropped.
func (r *Recorder) isolate(ctx context.Context, toks []string) error {
	seen := map[string]bool{}
	for _, tok := range toks {
		cond := r.market[tok]
		if seen[cond] {
			continue
		}
		seen[cond] = true
		pair := r.byCond[strings.ToLower(cond)]
		books, err := r.src.Books(ctx, pair[:])
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			if errors.Is(err, exchange.ErrNotFound) || errors.Is(err, exchange.ErrBadRequest) {
				r.dropped[cond] = true
				r.count(func(s *Stats) { s.Dropped++ })
				r.cfg.Log.Warn().Str("market", cond).Err(err).Msg("book unavailable: no longer recording the market")
			} else {
				r.failed("reading books failed", err)
			}
			continue
		}
		if err := r.takeBooks(books); err != nil {
			return err
		}
	}
	return nil
}

// takeBooks writes the books that changed (a tick change first as a Meta).
func (r *Recorder) takeBooks(books []exchange.OrderBook) error {
	received := r.stamp()
	for i := range books {
		eb := &books[i]
		cond, ok := r.market[eb.AssetID]
		if !ok {
			continue
		}
		b := recording.BookFromExchange(eb, received)
		if b.Market == "" {
			b.Market = cond
		}
		if !r.filter.Changed(&b, eb.Hash) {
			r.count(func(s *Stats) { s.Unchanged++ })
			continue
		}
		if old := r.ticks[b.TokenID]; b.TickSize.IsPositive() && !b.TickSize.Equal(old) {
			r.ticks[b.TokenID] = b.TickSize
			meta := &recording.Meta{Stamp: recording.Stamp{Exchange: b.Exchange, Received: received}, TokenID: b.TokenID, Market: b.Market, TickSize: b.TickSize}
			if err := r.write(recording.MetaEvent(meta)); err != nil {
				return err
			}
		}
		if err := r.write(recording.BookEvent(&b)); err != nil {
			return err
		}
	}
	return nil
}

// write validates e and hands it to the sink. An event the format cannot
// hold is skipped and counted; a sink failure is returned.
func (r *Recorder) write(e recording.Event) error {
	if err := e.Validate(); err != nil {
		r.count(func(s *Stats) { s.Skipped++ })
		r.cfg.Log.Debug().Err(err).Str("token", e.TokenID()).Msg("event skipped")
		if e.Kind == recording.KindBook {
			r.filter.Forget(e.TokenID())
		}
		return nil
	}
	r.order.stamp(e)
	if err := r.sink.Write(e); err != nil {
		return fmt.Errorf("recorder: %w", err)
	}
	r.count(func(s *Stats) {
		s.Events++
		switch e.Kind {
		case recording.KindBook:
			s.Books++
		case recording.KindTrade:
			s.Trades++
		case recording.KindMeta:
			s.Metas++
		}
	})
	return nil
}

func (r *Recorder) failed(msg string, err error) {
	r.count(func(s *Stats) { s.Errors++ })
	r.cfg.Log.Warn().Err(err).Msg(msg)
}

func (r *Recorder) count(f func(*Stats)) {
	r.mu.Lock()
	f(&r.stats)
	r.mu.Unlock()
}

// sameTime keeps the rule of recording.SameTimeRank: for one token, events
// of one time are written meta, trade, book. A poll reads the trades before
// the books, so with a clock that has not moved in between (a coarse clock,
// a fake one) a tick change found in the books would follow a trade of
// the same time; stamp moves such an event (and so the ones after it) a
// nanosecond later, which keeps the order the recorder saw them in.
type sameTime struct {
	last  time.Time // the last event written
	token map[string]rankedTime
}

type rankedTime struct {
	t    time.Time
	rank int
}

// stamp sets e's receive time to keep the file in time order and the
// same-time rule, and remembers it.
func (o *sameTime) stamp(e recording.Event) {
	st := stampOf(e)
	if st == nil || st.Received.IsZero() {
		return
	}
	if o.token == nil {
		o.token = map[string]rankedTime{}
	}
	t, rank := st.Received, recording.SameTimeRank(e.Kind)
	if t.Before(o.last) {
		t = o.last
	}
	if l, ok := o.token[e.TokenID()]; ok && t.Equal(l.t) && rank < l.rank {
		t = t.Add(time.Nanosecond)
	}
	st.Received = t
	o.last = t
	o.token[e.TokenID()] = rankedTime{t: t, rank: rank}
}

// stampOf returns the timestamps of e's member.
func stampOf(e recording.Event) *recording.Stamp {
	switch {
	case e.Kind == recording.KindBook && e.Book != nil:
		return &e.Book.Stamp
	case e.Kind == recording.KindTrade && e.Trade != nil:
		return &e.Trade.Stamp
	case e.Kind == recording.KindMeta && e.Meta != nil:
		return &e.Meta.Stamp
	}
	return nil
}

// stamp is the clock's time, never before the previous stamp (the wall
// clock may step back), so the recording stays in time order.
func (r *Recorder) stamp() time.Time {
	t := r.cfg.Clock.Now()
	if t.Before(r.last) {
		t = r.last
	}
	r.last = t
	return t
}
