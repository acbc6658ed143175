package engine

// Level is one aggregated price level of a token's book.
type Level struct {
	Price int64 // price of the token, base units
	Size  int64 // shares, base units
}

// BookView is one token's view of its market book, best level first on
// each side.
type BookView struct {
	Market    string
	Token     string
	Outcome   int
	Tick      int64
	MinSize   int64
	Bids      []Level // descending price
	Asks      []Level // ascending price
	LastPrice int64   // last execution price of this token, 0 before any
	Closed    bool
}

// Book returns the book of a token, at most depth levels per side (all when
// depth <= 0).
func (e *Engine) Book(token string, depth int) (BookView, error) {
	ref, ok := e.tokens[token]
	if !ok {
		return BookView{}, ErrUnknownToken
	}
	m := ref.m
	v := BookView{Market: m.id, Token: token, Outcome: ref.outcome, Tick: m.tick, MinSize: m.minSize, Closed: m.closed}
	if m.last != 0 {
		v.LastPrice = price0(ref.outcome, m.last)
	}
	bids, asks := &m.bids, &m.asks
	if ref.outcome == 1 { // outcome 1 sees the market book mirrored
		bids, asks = asks, bids
	}
	v.Bids = levelsOf(bids, ref.outcome, depth)
	v.Asks = levelsOf(asks, ref.outcome, depth)
	return v, nil
}

func levelsOf(s *bookSide, outcome, depth int) []Level {
	n := len(s.levels)
	if depth > 0 && depth < n {
		n = depth
	}
	out := make([]Level, 0, n)
	for i := len(s.levels) - 1; i >= 0 && len(out) < n; i-- {
		l := s.levels[i]
		out = append(out, Level{Price: price0(outcome, l.price), Size: l.size})
	}
	return out
}

// BestBidAsk returns the best bid and ask of a token (0 when a side is
// empty).
func (e *Engine) BestBidAsk(token string) (bid, ask int64, err error) {
	ref, ok := e.tokens[token]
	if !ok {
		return 0, 0, ErrUnknownToken
	}
	bs, as := &ref.m.bids, &ref.m.asks
	if ref.outcome == 1 {
		bs, as = as, bs
	}
	if l := bs.best(); l != nil {
		bid = price0(ref.outcome, l.price)
	}
	if l := as.best(); l != nil {
		ask = price0(ref.outcome, l.price)
	}
	return bid, ask, nil
}

// MarketOf returns the market id and outcome index of a token.
func (e *Engine) MarketOf(token string) (marketID string, outcome int, ok bool) {
	ref, ok := e.tokens[token]
	if !ok {
		return "", 0, false
	}
	return ref.m.id, ref.outcome, true
}

// Resting calls fn for every order resting in a market's book, best level
// first on each side, in time priority within a level, with its price in
// terms of outcome 0 and whether it rests on the bid side of the market
// book (a BUY of outcome 0 or a SELL of outcome 1). fn must not change the
// engine.
func (e *Engine) Resting(marketID string, fn func(o *Order, price0 int64, bid bool)) error {
	m, ok := e.markets[marketID]
	if !ok {
		return ErrUnknownMarket
	}
	for _, s := range []*bookSide{&m.bids, &m.asks} {
		for i := len(s.levels) - 1; i >= 0; i-- {
			for o := s.levels[i].head; o != nil; o = o.next {
				fn(o, o.bookPrice, s.bid)
			}
		}
	}
	return nil
}
