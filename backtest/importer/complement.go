package importer

import (
	"fmt"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/recording"
)

// seenMarket is what the input showed of one market (or, keyed by
// "token:<id>", of a token no message places in a market).
type seenMarket struct {
	id     string
	tokens []string // in order of first appearance
}

// note records that token appeared, in market (which may be unknown).
func (im *importer) note(token, market string) {
	if token == "" {
		return
	}
	if market == "" {
		market = im.marketOf(token, "")
	}
	key := market
	if key == "" {
		key = "token:" + token
	} else {
		key = strings.ToLower(key)
		delete(im.seen, "token:"+token) // now placed
	}
	sm := im.seen[key]
	if sm == nil {
		sm = &seenMarket{id: market}
		im.seen[key] = sm
	}
	for _, t := range sm.tokens {
		if t == token {
			return
		}
	}
	sm.tokens = append(sm.tokens, token)
}

// deriving reports whether Options.Complement derives token's complement
// from token's events: it returns the complement when that one has had no
// book of its own.
func (im *importer) deriving(token string) (string, bool) {
	if !im.opts.Complement {
		return "", false
	}
	other, _, ok := im.known.complement(token)
	if !ok || im.own[other] {
		return "", false
	}
	return other, true
}

// deriveBook writes the complement's book mirrored from b, when derived.
func (im *importer) deriveBook(b *recording.Book) error {
	other, ok := im.deriving(b.TokenID)
	if !ok {
		return nil
	}
	bids, err := mirror(b.Asks)
	if err != nil {
		return fmt.Errorf("deriving the book of %s: asks: %w", other, err)
	}
	asks, err := mirror(b.Bids)
	if err != nil {
		return fmt.Errorf("deriving the book of %s: bids: %w", other, err)
	}
	t := im.terms(other, b.Market)
	d := &recording.Book{Stamp: b.Stamp, TokenID: other, Market: b.Market, Bids: bids, Asks: asks,
		TickSize: b.TickSize, MinOrderSize: b.MinOrderSize}
	if d.TickSize.IsZero() {
		d.TickSize = t.Tick
	}
	if d.MinOrderSize.IsZero() {
		d.MinOrderSize = t.MinSize
	}
	if err := im.push(recording.BookEvent(d)); err != nil {
		return err
	}
	im.st.DerivedBooks++
	im.note(other, b.Market)
	return nil
}

// deriveTrade writes the complement's trade mirrored from tr, when derived:
// a taker buying the outcome at p is a taker selling its complement at
// 1 − p.
func (im *importer) deriveTrade(tr *recording.Trade) error {
	other, ok := im.deriving(tr.TokenID)
	if !ok {
		return nil
	}
	one := decimal.NewFromInt(1)
	if !tr.Price.LessThan(one) {
		return fmt.Errorf("deriving a trade of %s: price %s has no complement below 1", other, tr.Price)
	}
	d := &recording.Trade{Stamp: tr.Stamp, TokenID: other, Market: tr.Market, Price: one.Sub(tr.Price), Size: tr.Size}
	if tr.TakerSide != "" {
		d.TakerSide = tr.TakerSide.Opposite()
	}
	if err := im.push(recording.TradeEvent(d)); err != nil {
		return err
	}
	im.st.DerivedTrades++
	return nil
}

// warn lists, once the input is read, the markets a backtest cannot use as
// they are: outcomes without books (derived or not), tokens no message
// places in a market.
func (im *importer) warn() {
	keys := make([]string, 0, len(im.seen))
	for k := range im.seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var w []string
	for _, k := range keys {
		sm := im.seen[k]
		if sm.id == "" {
			w = append(w, fmt.Sprintf("token %s: no message names its market, so a backtest cannot use it (give a catalog snapshot or --market)", sm.tokens[0]))
			continue
		}
		km := im.known.market("", sm.id)
		tokens := sm.tokens
		if km != nil {
			tokens = km.Tokens
		}
		var with, without []string
		for _, t := range tokens {
			if im.own[t] {
				with = append(with, t)
			} else {
				without = append(without, t)
			}
		}
		if km != nil {
			var strangers []string
			for _, t := range sm.tokens {
				if !containsString(km.Tokens, t) {
					strangers = append(strangers, t)
				}
			}
			if len(strangers) > 0 {
				w = append(w, fmt.Sprintf("market %s: token %s is not one of its tokens in the catalog (%s): a backtest ignores its events",
					sm.id, strings.Join(strangers, ", "), strings.Join(km.Tokens, ", ")))
			}
		}
		if !im.hasTick(sm.id, tokens) {
			w = append(w, fmt.Sprintf("market %s: no tick size (no book gave one, nor a catalog or --tick), so a backtest cannot use it: give a catalog snapshot or --tick", sm.id))
		}
		switch {
		case len(with) == 0:
			w = append(w, fmt.Sprintf("market %s: no book in the input", sm.id))
		case km != nil && len(km.Tokens) == 2 && len(without) == 1 && im.opts.Complement:
			w = append(w, fmt.Sprintf("market %s: token %s has no book of its own in the input: its books and trades are derived from token %s's, mirrored at 1 − p",
				sm.id, without[0], with[0]))
		case km != nil && len(km.Tokens) == 2 && len(without) == 1:
			w = append(w, fmt.Sprintf("market %s: only token %s has books; a backtest needs both outcomes: import again with --complement to derive token %s's book (mirrored at 1 − p)",
				sm.id, with[0], without[0]))
		case km == nil && len(tokens) == 1:
			w = append(w, fmt.Sprintf("market %s: only token %s appears and the other outcome's token is unknown, so a backtest cannot use it: give a catalog snapshot or --market %s:YES,NO (and --complement)",
				sm.id, tokens[0], sm.id))
		case len(without) > 0:
			w = append(w, fmt.Sprintf("market %s: no book for token %s", sm.id, strings.Join(without, ", ")))
		}
	}
	im.st.Warnings = append(w, im.lateWarnings()...)
}

// hasTick reports whether a tick size is known for a market of tokens: from
// a message of one of them or from the terms.
func (im *importer) hasTick(market string, tokens []string) bool {
	for _, t := range tokens {
		if v, ok := im.ticks[t]; ok && v.IsPositive() {
			return true
		}
		if im.terms(t, market).Tick.IsPositive() {
			return true
		}
	}
	return false
}
