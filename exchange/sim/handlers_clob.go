package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/sim/engine"
	"github.com/shopspring/decimal"
)

// collateralAddress is the asset address listed in reward rates.
const collateralAddress = "0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174"

var conditionRE = regexp.MustCompile(`^0x[0-9a-fA-F]{64}$`)

func clobError(w http.ResponseWriter, status int, msg string) {
	writeError(w, "clob", status, "", msg)
}

// GET /clob/ (health)
func (e *Exchange) handleHealth(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, "OK")
}

// tokenPrice is a token's listed price: the book's mid when both sides
// exist, else the last trade, else the catalog's initial price; 1 or 0
// once resolved.
func (e *Exchange) tokenPrice(s *mstate, outcome int) decimal.Decimal {
	if s.closed {
		if s.winner == outcome {
			return decimal.NewFromInt(1)
		}
		return decimal.Zero
	}
	tok := s.m.TokenIDs[outcome]
	bid, ask, _ := e.eng.BestBidAsk(tok)
	if bid > 0 && ask > 0 {
		return exchange.Fixed((bid + ask) / 2).Decimal().Round(4)
	}
	if v, err := e.eng.Book(tok, 1); err == nil && v.LastPrice > 0 {
		return exchange.Fixed(v.LastPrice).Decimal()
	}
	if outcome == 0 {
		return s.m.InitialPrice
	}
	return decimal.NewFromInt(1).Sub(s.m.InitialPrice)
}

func (e *Exchange) bookMarket(s *mstate) exchange.Market {
	m := s.m
	tags := append([]string{}, m.Tags...)
	mk := exchange.Market{
		EnableOrderBook: true, Active: m.Active && !s.closed, Closed: s.closed, Archived: m.Archived,
		AcceptingOrders: !s.closed, NotificationsEnabled: true, NegRisk: m.NegRisk,
		AcceptingOrderTimestamp: isoTime(m.CreatedAt), ConditionID: m.ConditionID, QuestionID: m.QuestionID,
		Question: m.Question, Description: m.Description, MarketSlug: m.Slug, EndDateISO: ts(m.EndDate),
		NegRiskMarketID: m.NegRiskMarketID, NegRiskRequestID: m.NegRiskRequestID, Icon: m.Icon, Image: m.Image,
		MinimumOrderSize: exchange.NewNumber(m.MinOrderSize), MinimumTickSize: exchange.NewNumber(s.tickSize),
		SecondsDelay: exchange.NewNumber(decimal.NewFromInt(m.SecondsDelay)),
		MakerBaseFee: exchange.NewNumber(decimal.NewFromInt(m.MakerBaseFee)),
		TakerBaseFee: exchange.NewNumber(decimal.NewFromInt(m.TakerBaseFee)),
		Rewards: exchange.Rewards{
			Rates:     []exchange.RewardRate{},
			MinSize:   exchange.NewNumber(m.Rewards.MinSize),
			MaxSpread: exchange.NewNumber(m.Rewards.MaxSpread),
		},
		Tags: tags,
	}
	if m.Rewards.DailyRate.IsPositive() {
		mk.Rewards.Rates = append(mk.Rewards.Rates, exchange.RewardRate{AssetAddress: collateralAddress, RewardsDailyRate: exchange.NewNumber(m.Rewards.DailyRate)})
	}
	for o, tok := range m.TokenIDs {
		mk.Tokens = append(mk.Tokens, exchange.MarketToken{TokenID: tok, Outcome: m.Outcomes[o], Price: exchange.NewNumber(e.tokenPrice(s, o)), Winner: s.closed && s.winner == o})
	}
	return mk
}

func (e *Exchange) summary(s *mstate, full bool) exchange.MarketSummary {
	m := s.m
	status := exchange.MarketStatusActive
	if s.closed {
		status = exchange.MarketStatusClosed
	}
	out := exchange.MarketSummary{
		ConditionID: m.ConditionID, Status: status, Question: m.Question, Slug: m.Slug, NegRisk: m.NegRisk,
		MarketID: m.ID, AssetsIDs: []string{m.TokenIDs[0], m.TokenIDs[1]}, Outcomes: []string{m.Outcomes[0], m.Outcomes[1]},
	}
	if full {
		out.Description = m.Description
		out.Event = &exchange.MarketEvent{ID: strconv.FormatInt(s.ev.ID, 10), Slug: s.ev.Slug, Title: s.ev.Title, Ticker: s.ev.Ticker, Description: s.ev.Description}
		out.RawMetadata, _ = json.Marshal(map[string]any{
			"simulated": true, "tick_size": s.tickSize.String(), "minimum_order_size": m.MinOrderSize.String(),
			"end_date": ts(m.EndDate), "event_id": s.ev.ID,
		})
	}
	return out
}

// cursorPage reads next_cursor and returns the offset; ok is false after
// an error was written.
func cursorPage(w http.ResponseWriter, r *http.Request) (offset int64, ok bool) {
	c := r.URL.Query().Get("next_cursor")
	off, valid := exchange.DecodeCursor(c)
	if !valid || off < -1 {
		clobError(w, http.StatusBadRequest, "invalid next_cursor: want the base64 of an offset, MA== for the first page")
		return 0, false
	}
	return off, true
}

// pageBounds returns the slice bounds of a page and the next cursor.
func pageBounds(offset int64, n, size int) (lo, hi int, next string) {
	if offset < 0 || offset >= int64(n) {
		return 0, 0, exchange.EndCursor
	}
	lo = int(offset)
	hi = min(n, lo+size)
	next = exchange.EndCursor
	if hi < n {
		next = exchange.EncodeCursor(int64(hi))
	}
	return lo, hi, next
}

// GET /clob/markets
func (e *Exchange) handleMarkets(w http.ResponseWriter, r *http.Request) {
	off, ok := cursorPage(w, r)
	if !ok {
		return
	}
	e.mu.Lock()
	lo, hi, next := pageBounds(off, len(e.markets), marketsPageSize)
	data := make([]exchange.Market, 0, hi-lo)
	for _, s := range e.markets[lo:hi] {
		data = append(data, e.bookMarket(s))
	}
	e.mu.Unlock()
	writeJSON(w, http.StatusOK, exchange.MarketsPage{Data: data, NextCursor: next, Limit: marketsPageSize, Count: len(data)})
}

// GET /clob/markets/{condition_id}: the merged shape.
func (e *Exchange) handleMarket(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("condition_id")
	if !conditionRE.MatchString(id) {
		clobError(w, http.StatusBadRequest, "invalid condition_id: want 0x and 64 hex digits")
		return
	}
	e.mu.Lock()
	s, ok := e.byCond[strings.ToLower(id)]
	if !ok {
		e.mu.Unlock()
		clobError(w, http.StatusNotFound, "market not found")
		return
	}
	bm := e.bookMarket(s)
	d := exchange.MarketDetail{MarketSummary: e.summary(s, true), Book: &bm}
	e.mu.Unlock()
	writeJSON(w, http.StatusOK, d)
}

func (e *Exchange) summaries(w http.ResponseWriter, r *http.Request, keep func(*mstate) bool, full bool) {
	off, ok := cursorPage(w, r)
	if !ok {
		return
	}
	e.mu.Lock()
	var sel []*mstate
	for _, s := range e.markets {
		if keep(s) {
			sel = append(sel, s)
		}
	}
	lo, hi, next := pageBounds(off, len(sel), marketsPageSize)
	data := make([]exchange.MarketSummary, 0, hi-lo)
	for _, s := range sel[lo:hi] {
		data = append(data, e.summary(s, full))
	}
	e.mu.Unlock()
	writeJSON(w, http.StatusOK, exchange.SummariesPage{Data: data, NextCursor: next})
}

// GET /clob/sampling-markets: open markets paying rewards.
func (e *Exchange) handleSamplingMarkets(w http.ResponseWriter, r *http.Request) {
	e.summaries(w, r, func(s *mstate) bool { return !s.closed && s.m.Rewards.DailyRate.IsPositive() }, true)
}

// GET /clob/simplified-markets: every market.
func (e *Exchange) handleSimplifiedMarkets(w http.ResponseWriter, r *http.Request) {
	e.summaries(w, r, func(*mstate) bool { return true }, false)
}

// readTokens decodes the POST /books and POST /spreads body.
func readTokens(w http.ResponseWriter, r *http.Request) ([]string, bool) {
	var refs []exchange.TokenRef
	if err := decodeBody(r, &refs); err != nil {
		clobError(w, http.StatusBadRequest, "invalid body: want a JSON array of {\"token_id\": string}: "+err.Error())
		return nil, false
	}
	if len(refs) == 0 {
		clobError(w, http.StatusBadRequest, "invalid body: no token ids")
		return nil, false
	}
	if len(refs) > maxTokensPerCall {
		clobError(w, http.StatusBadRequest, fmt.Sprintf("invalid body: at most %d token ids per request", maxTokensPerCall))
		return nil, false
	}
	out := make([]string, len(refs))
	for i, ref := range refs {
		if ref.TokenID == "" {
			clobError(w, http.StatusBadRequest, fmt.Sprintf("invalid body: item %d has no token_id", i))
			return nil, false
		}
		out[i] = ref.TokenID
	}
	return out, true
}

// bookLocked builds a token's book as POST /books sends it: bids ascending
// and asks descending (best last, as the live exchange does).
func (e *Exchange) bookLocked(tok string, now time.Time) (exchange.OrderBook, error) {
	s, ok := e.byToken[tok]
	if !ok {
		return exchange.OrderBook{}, engine.ErrUnknownToken
	}
	v, err := e.eng.Book(tok, 0)
	if err != nil {
		return exchange.OrderBook{}, err
	}
	b := exchange.OrderBook{
		Market: s.m.ConditionID, AssetID: tok, Timestamp: strconv.FormatInt(now.UnixMilli(), 10),
		Bids: make([]exchange.PriceLevel, len(v.Bids)), Asks: make([]exchange.PriceLevel, len(v.Asks)),
		MinOrderSize: s.m.MinOrderSize, TickSize: s.reportedTick(outcomeOf(s, tok)), NegRisk: s.m.NegRisk, LastTradePrice: exchange.Fixed(v.LastPrice).Decimal(),
	}
	h := sha256.New()
	fmt.Fprint(h, s.m.ConditionID, tok)
	for i, l := range v.Bids {
		b.Bids[len(v.Bids)-1-i] = exchange.PriceLevel{Price: exchange.Fixed(l.Price).Decimal(), Size: exchange.Fixed(l.Size).Decimal()}
		fmt.Fprint(h, "b", l.Price, l.Size)
	}
	for i, l := range v.Asks {
		b.Asks[len(v.Asks)-1-i] = exchange.PriceLevel{Price: exchange.Fixed(l.Price).Decimal(), Size: exchange.Fixed(l.Size).Decimal()}
		fmt.Fprint(h, "a", l.Price, l.Size)
	}
	b.Hash = hex.EncodeToString(h.Sum(nil)[:20])
	return b, nil
}

// Book returns a token's book (levels best first).
func (e *Exchange) Book(tokenID string) (exchange.OrderBook, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	b, err := e.bookLocked(tokenID, e.clock())
	if err != nil {
		return b, err
	}
	b.Normalize()
	return b, nil
}

// POST /clob/books
func (e *Exchange) handleBooks(w http.ResponseWriter, r *http.Request) {
	toks, ok := readTokens(w, r)
	if !ok {
		return
	}
	out := make([]exchange.OrderBook, 0, len(toks))
	e.mu.Lock()
	now := e.clock()
	for _, t := range toks {
		b, err := e.bookLocked(t, now)
		if err != nil {
			e.mu.Unlock()
			clobError(w, http.StatusNotFound, "no orderbook exists for token id "+t)
			return
		}
		out = append(out, b)
	}
	e.mu.Unlock()
	for i := range out {
		if kind := e.faults.garbageKind(out[i].Market); kind != "" {
			corrupt(&out[i], kind)
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// POST /clob/spreads: best ask minus best bid per token; a token with an
// empty side is left out.
func (e *Exchange) handleSpreads(w http.ResponseWriter, r *http.Request) {
	toks, ok := readTokens(w, r)
	if !ok {
		return
	}
	out := map[string]string{}
	e.mu.Lock()
	for _, t := range toks {
		bid, ask, err := e.eng.BestBidAsk(t)
		if err != nil {
			e.mu.Unlock()
			clobError(w, http.StatusNotFound, "no orderbook exists for token id "+t)
			return
		}
		if bid > 0 && ask > 0 {
			out[t] = exchange.Fixed(ask - bid).Decimal().String()
		}
	}
	e.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

// GET /clob/builder/trades
func (e *Exchange) handleBuilderTrades(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var before, after int64 = -1, -1
	for _, p := range []struct {
		name string
		v    *int64
	}{{"before", &before}, {"after", &after}} {
		if s := q.Get(p.name); s != "" {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || n < 0 {
				clobError(w, http.StatusBadRequest, "invalid "+p.name+": want a Unix timestamp in seconds")
				return
			}
			*p.v = n
		}
	}
	off, ok := cursorPage(w, r)
	if !ok {
		return
	}
	id, maker, market, assetID := q.Get("id"), strings.ToLower(q.Get("maker_address")), strings.ToLower(q.Get("market")), q.Get("asset_id")
	e.mu.Lock()
	now := e.clock()
	e.settleDue(now)
	var sel []*builderRec
	for i := range e.data.builder {
		b := &e.data.builder[i]
		t := b.time.Unix()
		switch {
		case id != "" && b.id != id,
			maker != "" && strings.ToLower(b.rec.maker) != maker,
			market != "" && b.s.id != market,
			assetID != "" && b.s.m.TokenIDs[b.outcome] != assetID,
			before >= 0 && t >= before,
			after >= 0 && t <= after:
			continue
		}
		sel = append(sel, b)
	}
	sort.SliceStable(sel, func(i, j int) bool { return sel[i].time.After(sel[j].time) })
	lo, hi, _ := pageBounds(off, len(sel), builderPageSize)
	out := make([]exchange.BuilderTrade, 0, hi-lo)
	for _, b := range sel[lo:hi] {
		out = append(out, e.builderJSON(b, now))
	}
	e.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

func (e *Exchange) builderJSON(b *builderRec, now time.Time) exchange.BuilderTrade {
	s := b.s
	status := b.status(now)
	last := b.time
	switch status {
	case exchange.TradeMined:
		last = b.time.Add(builderMined)
	case exchange.TradeConfirmed:
		last = b.time.Add(builderConfirmed)
	}
	bt := exchange.BuilderTrade{
		ID: b.id, TakerOrderID: b.fills[0].Taker.Order.ID, Market: s.m.ConditionID, AssetID: s.m.TokenIDs[b.outcome],
		Side: side(b.side), Size: exchange.Fixed(b.size).Decimal(), FeeRateBps: decimal.NewFromInt(s.m.TakerBaseFee),
		Price: exchange.Fixed(b.price).Decimal().Round(6), Status: status, MatchTime: isoTime(b.time), LastUpdate: isoTime(last),
		Outcome: s.m.Outcomes[b.outcome], MakerAddress: b.rec.maker, Owner: b.rec.owner,
		TransactionHash: b.tx, Type: b.kind, MakerOrders: []exchange.MakerOrder{},
	}
	if b.kind == "MAKER" {
		bt.FeeRateBps = decimal.NewFromInt(s.m.MakerBaseFee)
	}
	for _, f := range b.fills {
		mk := f.Maker
		owner := ""
		if a := e.accts.byWallet[mk.Account]; a != nil && !a.flow {
			owner = a.apiKey
		}
		bt.MakerOrders = append(bt.MakerOrders, exchange.MakerOrder{
			OrderID: mk.Order.ID, MakerAddress: e.display(mk.Account), Owner: owner, MatchedAmount: exchange.Fixed(f.Size).Decimal(),
			FeeRateBps: decimal.NewFromInt(s.m.MakerBaseFee), Price: exchange.Fixed(mk.Price).Decimal(), AssetID: s.m.TokenIDs[mk.Outcome],
			Outcome: s.m.Outcomes[mk.Outcome], Side: side(mk.Side),
		})
	}
	return bt
}
