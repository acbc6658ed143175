package importer

import (
	"errors"
	"fmt"
	"sort"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
)

// The importer's handlers: one per market-channel message type.

func (im *importer) emit(e recording.Event) error {
	if err := e.Validate(); err != nil {
		return err
	}
	if err := im.out.push(e); err != nil {
		return err
	}
	switch e.Kind {
	case recording.KindBook:
		im.stats.Books++
	case recording.KindTrade:
		im.stats.Trades++
	case recording.KindMeta:
		im.stats.Metas++
	}
	return nil
}

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
	}
	name := m.EventType
	if name == "" {
		name = "(none)"
	}
	im.stats.Skipped[name]++
	return nil
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
	if m.TickSize.Set {
		im.ticks[m.AssetID] = m.TickSize.Decimal
	}
	if m.MinOrderSize.Set {
		im.mins[m.AssetID] = m.MinOrderSize.Decimal
	}
	im.books[m.AssetID] = &liveBook{market: m.Market, bids: bids, asks: asks}
	return im.emitBook(m.AssetID, st)
}

// emitBook writes a snapshot (a copy) of the importer's book of token.
func (im *importer) emitBook(token string, st recording.Stamp) error {
	lb := im.books[token]
	b := &recording.Book{Stamp: st, TokenID: token, Market: lb.market,
		Bids: append([]exchange.PriceLevel{}, lb.bids...), Asks: append([]exchange.PriceLevel{}, lb.asks...),
		TickSize: im.opts.TickSize, MinOrderSize: im.opts.MinOrderSize}
	if t, ok := im.ticks[token]; ok {
		b.TickSize = t
	}
	if ms, ok := im.mins[token]; ok {
		b.MinOrderSize = ms
	}
	return im.emit(recording.BookEvent(b))
}

func (im *importer) handlePriceChange(m *wsMessage) error {
	st, err := im.stamp(m)
	if err != nil {
		return err
	}
	changes := m.PriceChanges
	if changes == nil {
		changes = m.Changes
	}
	var touched []string
	for _, c := range changes {
		token := c.AssetID
		if token == "" {
			token = m.AssetID
		}
		lb, ok := im.books[token]
		if !ok {
			im.stats.Skipped["price_change (before a book)"]++
			continue
		}
		if err := lb.apply(c); err != nil {
			return err
		}
		if m.Market != "" {
			lb.market = m.Market
		}
		if !containsString(touched, token) {
			touched = append(touched, token)
		}
	}
	for _, token := range touched {
		if err := im.emitBook(token, st); err != nil {
			return err
		}
	}
	return nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
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
	return im.emit(recording.TradeEvent(&recording.Trade{Stamp: st, TokenID: m.AssetID, Market: m.Market,
		Price: m.Price.Decimal, Size: m.Size.Decimal, TakerSide: side}))
}

func (im *importer) handleTick(m *wsMessage) error {
	st, err := im.stamp(m)
	if err != nil {
		return err
	}
	if !m.NewTickSize.Set || !m.NewTickSize.IsPositive() {
		return errors.New("tick_size_change without a positive new_tick_size")
	}
	im.ticks[m.AssetID] = m.NewTickSize.Decimal
	return im.emit(recording.MetaEvent(&recording.Meta{Stamp: st, TokenID: m.AssetID, Market: m.Market, TickSize: m.NewTickSize.Decimal}))
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
	if !containsString(tokens, m.WinningAssetID) {
		tokens = append(tokens, m.WinningAssetID)
	}
	sort.Strings(tokens)
	for _, tok := range tokens {
		payout := decimal.Zero
		if tok == m.WinningAssetID {
			payout = decimal.NewFromInt(1)
		}
		if err := im.emit(recording.MetaEvent(&recording.Meta{Stamp: st, TokenID: tok, Market: m.Market, Resolved: true, Payout: payout})); err != nil {
			return err
		}
	}
	return nil
}
