package importer

import (
	"errors"
	"fmt"
	"sort"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
)

// The importer's handlers: one per market-channel message type. Each
// handler either writes events and counts the message in Stats.Imported,
// or counts it in Stats.Skipped with a reason, or returns an error.

func (im *importer) handle(m *wsMessage) error {
	switch m.EventType {
	case "book":
		return im.handleBook(m)
	case "price_change":
		return im.handlePriceChange(m)
	case "last_trade_price":
		return im.handleTrade(m)
	case "tick_size_change":
		return im.handleTick(m)
	case "market_resolved":
		return im.handleResolved(m)
	case "":
		im.st.Skipped[reasonNoType]++
		return nil
	}
	im.st.Skipped[m.EventType+": "+reasonNotUsed]++
	return nil
}

func (im *importer) imported(m *wsMessage) { im.st.Imported[m.EventType]++ }

// push hands an event to the reorder window.
func (im *importer) push(e recording.Event) error {
	if err := e.Validate(); err != nil {
		return err
	}
	return im.out.push(e)
}

func (im *importer) stamp(m *wsMessage) (recording.Stamp, error) {
	if m.Timestamp.IsZero() {
		return recording.Stamp{}, errors.New("message without timestamp")
	}
	return recording.Stamp{Exchange: m.Timestamp.Time}, nil
}

func (im *importer) handleBook(m *wsMessage) error {
	st, err := im.stamp(m)
	if err != nil {
		return err
	}
	if m.AssetID == "" {
		return errors.New("book without asset_id")
	}
	bidsIn, asksIn := m.Bids, m.Asks
	if bidsIn == nil && asksIn == nil {
		bidsIn, asksIn = m.Buys, m.Sells
	}
	bids, err := levelsFromWS(bidsIn, true)
	if err != nil {
		return fmt.Errorf("bids: %w", err)
	}
	asks, err := levelsFromWS(asksIn, false)
	if err != nil {
		return fmt.Errorf("asks: %w", err)
	}
	market := im.marketOf(m.AssetID, m.Market)
	if m.TickSize.Set {
		if err := im.bookTick(m.AssetID, market, m.TickSize.Decimal, st); err != nil {
			return err
		}
	}
	if m.MinOrderSize.Set {
		im.mins[m.AssetID] = m.MinOrderSize.Decimal
	}
	lb := &liveBook{market: market, bids: bids, asks: asks}
	im.books[m.AssetID] = lb
	im.own[m.AssetID] = true
	im.note(m.AssetID, lb.market)
	if lb.crossed() {
		im.st.Skipped[reasonCrossedSnap]++
		return nil
	}
	im.imported(m)
	return im.emitBook(m.AssetID, st)
}

// emitBook writes a snapshot (a copy) of the importer's book of token, and,
// with Options.Complement, the derived book of its complement.
func (im *importer) emitBook(token string, st recording.Stamp) error {
	lb := im.books[token]
	st = im.inOrder(token, lb.market, st)
	t := im.terms(token, lb.market)
	b := &recording.Book{Stamp: st, TokenID: token, Market: lb.market,
		Bids: append([]exchange.PriceLevel{}, lb.bids...), Asks: append([]exchange.PriceLevel{}, lb.asks...),
		TickSize: t.Tick, MinOrderSize: t.MinSize}
	if v, ok := im.ticks[token]; ok {
		b.TickSize = v
	}
	if v, ok := im.mins[token]; ok {
		b.MinOrderSize = v
	}
	if err := im.push(recording.BookEvent(b)); err != nil {
		return err
	}
	return im.deriveBook(b)
}

// change is one price_change entry with the token it applies to.
type change struct {
	token string
	wsChange
}

func (im *importer) handlePriceChange(m *wsMessage) error {
	st, err := im.stamp(m)
	if err != nil {
		return err
	}
	var changes []change
	switch {
	case m.PriceChanges != nil || m.Changes != nil:
		for _, c := range append(m.PriceChanges, m.Changes...) {
			token := c.AssetID
			if token == "" {
				token = m.AssetID
			}
			changes = append(changes, change{token: token, wsChange: c})
		}
	case m.Price.Set || m.Size.Set || m.Side != "":
		// The older flat shape: one change at the top level.
		changes = []change{{token: m.AssetID, wsChange: wsChange{AssetID: m.AssetID, Price: m.Price, Size: m.Size, Side: m.Side,
			BestBid: m.BestBid, BestAsk: m.BestAsk}}}
	}
	if len(changes) == 0 {
		im.st.Skipped[reasonNoChanges]++
		return nil
	}
	// The tokens touched, in order, with the side of their last change and
	// their last best_bid/best_ask.
	type touchedToken struct {
		token            string
		last             exchange.Side
		bestBid, bestAsk wsDec
	}
	var touched []*touchedToken
	skipped := 0
	for _, c := range changes {
		if c.token == "" {
			return errors.New("price change without asset_id")
		}
		lb, ok := im.books[c.token]
		if !ok {
			skipped++
			continue
		}
		if err := lb.apply(c.wsChange); err != nil {
			return err
		}
		if m.Market != "" {
			lb.market = m.Market
		}
		var tt *touchedToken
		for _, x := range touched {
			if x.token == c.token {
				tt = x
			}
		}
		if tt == nil {
			tt = &touchedToken{token: c.token}
			touched = append(touched, tt)
		}
		tt.last = exchange.Side(c.Side)
		if c.BestBid.Set && c.BestAsk.Set {
			tt.bestBid, tt.bestAsk = c.BestBid, c.BestAsk
		}
	}
	if len(touched) == 0 {
		im.st.Skipped[reasonBeforeBook]++
		return nil
	}
	im.st.ChangesSkipped += skipped
	im.imported(m)
	for _, tt := range touched {
		lb := im.books[tt.token]
		if lb.crossed() {
			im.repair(lb, tt.last, tt.bestBid, tt.bestAsk)
		}
		if err := im.emitBook(tt.token, st); err != nil {
			return err
		}
	}
	return nil
}

// repair uncrosses lb: with the message's best_bid and best_ask (when
// given and not crossed themselves), by dropping the levels beyond them;
// else by dropping the crossed levels of the side the message did not
// change last (the stale side).
func (im *importer) repair(lb *liveBook, last exchange.Side, bestBid, bestAsk wsDec) {
	if bestBid.Set && bestAsk.Set && (bestBid.IsZero() || bestAsk.IsZero() || bestBid.LessThan(bestAsk.Decimal)) {
		ask := bestAsk.Decimal
		if ask.IsZero() { // no asks
			ask = decimal.NewFromInt(2)
		}
		im.st.LevelsDropped += lb.dropBeyond(bestBid.Decimal, ask)
		if !lb.crossed() {
			im.st.Crossed[crossedByBest]++
			return
		}
	}
	im.st.LevelsDropped += lb.dropStale(last)
	im.st.Crossed[crossedByStale]++
}

func (im *importer) handleTrade(m *wsMessage) error {
	st, err := im.stamp(m)
	if err != nil {
		return err
	}
	side := exchange.Side(m.Side)
	if side != "" && !side.Valid() {
		return fmt.Errorf("trade side %q", m.Side)
	}
	switch {
	case im.opts.TradeSide == "none":
		side = ""
	case im.opts.TradeSide == "maker" && side != "":
		side = side.Opposite()
	}
	tr := &recording.Trade{Stamp: st, TokenID: m.AssetID, Market: im.marketOf(m.AssetID, m.Market),
		Price: m.Price.Decimal, Size: m.Size.Decimal, TakerSide: side}
	if err := im.push(recording.TradeEvent(tr)); err != nil {
		return err
	}
	im.note(m.AssetID, tr.Market)
	im.imported(m)
	return im.deriveTrade(tr)
}

func (im *importer) handleTick(m *wsMessage) error {
	st, err := im.stamp(m)
	if err != nil {
		return err
	}
	if !m.NewTickSize.Set || !m.NewTickSize.IsPositive() {
		return errors.New("tick_size_change without a positive new_tick_size")
	}
	if m.AssetID == "" {
		return errors.New("tick_size_change without asset_id")
	}
	market := im.marketOf(m.AssetID, m.Market)
	im.said[m.AssetID] = m.NewTickSize.Decimal
	if err := im.changeTick(m.AssetID, market, m.NewTickSize.Decimal, st, true); err != nil {
		return err
	}
	im.note(m.AssetID, market)
	im.imported(m)
	return nil
}

func (im *importer) handleResolved(m *wsMessage) error {
	st, err := im.stamp(m)
	if err != nil {
		return err
	}
	if m.WinningAssetID == "" {
		return errors.New("market_resolved without winning_asset_id")
	}
	tokens := append([]string{}, m.AssetsIDs...)
	if km := im.known.market(m.WinningAssetID, m.Market); km != nil {
		tokens = append(tokens, km.Tokens...)
	}
	tokens = append(tokens, m.WinningAssetID)
	sort.Strings(tokens)
	for i, tok := range tokens {
		if tok == "" || i > 0 && tok == tokens[i-1] {
			continue
		}
		payout := decimal.Zero
		if tok == m.WinningAssetID {
			payout = decimal.NewFromInt(1)
		}
		market := im.marketOf(tok, m.Market)
		if err := im.push(recording.MetaEvent(&recording.Meta{Stamp: st, TokenID: tok, Market: market, Resolved: true, Payout: payout})); err != nil {
			return err
		}
	}
	im.imported(m)
	return nil
}
