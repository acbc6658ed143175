package importer

import (
	"strings"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/recording"
)

// A market has one tick, but the market channel sends tick_size_change per
// token, and a capture (or a subscription to one outcome) may hold the
// change of one token only; a book may go on carrying the tick its token
// had. So a change given by any token is the market's: every token of the
// market takes the new tick and gets a meta with it, and a token repeating
// the tick it gave before changes nothing, whatever the others gave.

// bookTick takes the tick_size of a book message of token. The token's
// first tick (or one equal to the catalog's) is only learnt, and does not
// undo a change of its market's tick that another token gave; a tick other
// than the one the token gave before is a change of its market's tick, as
// a tick_size_change would be (the book carries it; the other tokens get a
// meta).
func (im *importer) bookTick(token, market string, tick decimal.Decimal, st recording.Stamp) error {
	prev, ok := im.said[token]
	if !ok {
		prev = im.terms(token, market).Tick
	}
	im.said[token] = tick
	if prev.IsZero() || tick.Equal(prev) {
		if _, set := im.ticks[token]; !set {
			im.ticks[token] = tick
		}
		return nil
	}
	return im.changeTick(token, market, tick, st, false)
}

// changeTick sets the tick of every token of token's market (from the
// catalog, or as the input showed them) and writes a meta of the new tick
// for each: for token itself only when self (a tick_size_change message;
// a book carries its own tick).
func (im *importer) changeTick(token, market string, tick decimal.Decimal, st recording.Stamp, self bool) error {
	for _, tok := range im.marketTokens(token, market) {
		if tok == token && !self {
			im.ticks[tok] = tick
			continue
		}
		if cur, ok := im.ticks[tok]; ok && cur.Equal(tick) && tok != token {
			continue
		}
		im.ticks[tok] = tick
		if err := im.push(recording.MetaEvent(&recording.Meta{Stamp: st, TokenID: tok, Market: market, TickSize: tick})); err != nil {
			return err
		}
	}
	return nil
}

// marketTokens returns the tokens of token's market: the known market's
// (catalog, --market), else the ones the input has shown in it; token
// first.
func (im *importer) marketTokens(token, market string) []string {
	out := []string{token}
	var others []string
	if km := im.known.market(token, market); km != nil && (market == "" || strings.EqualFold(km.ConditionID, market)) {
		others = km.Tokens
	} else if sm := im.seen[strings.ToLower(market)]; market != "" && sm != nil {
		others = sm.tokens
	}
	for _, t := range others {
		if t != token {
			out = append(out, t)
		}
	}
	return out
}
